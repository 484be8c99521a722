// TRON's Stake 2.0 resources as the service reasons about them (issue 34).
// Pure: the numbers come from the node (getaccountresource, getaccount) and
// the rules are java-tron's, so a plan made here is what the chain will do.
//
// - Staking TRX for ENERGY gives an account an energy limit in proportion to
//   its share of the network's total energy weight (whole TRX staked by
//   everyone): limit = staked TRX × total energy limit ÷ total weight.
// - Energy used regenerates linearly over 24 hours; what the node reports as
//   used is already regenerated.
// - Delegating moves part of a stake (in sun, whole TRX) and the energy it
//   yields to another account, which spends it before burning TRX. Taking
//   the delegation back returns the stake; the energy the receiver used
//   comes back with it as the owner's usage, regenerating over 24 hours.
// - A contract call spends the caller's available energy first and burns TRX
//   at the chain's energy price only for the rest, within its fee_limit.

/** Sun in one TRX. */
export const SUN_PER_TRX = 1_000_000n;

/** The least a stake, a delegation or an unstake may move (java-tron: 1 TRX). */
export const MIN_STAKE_SUN = SUN_PER_TRX;

/** An account's resources now, as the node computes them (usage already regenerated). */
export interface TronAccountResources {
  energyLimit: bigint;
  energyUsed: bigint;
  /** The free bandwidth every activated account gets a day (bytes), and what of it is used. */
  freeBandwidthLimit: bigint;
  freeBandwidthUsed: bigint;
  /** Bandwidth from a bandwidth stake (bytes). */
  bandwidthLimit: bigint;
  bandwidthUsed: bigint;
  /** The network's daily energy and the whole TRX staked for energy by everyone. */
  totalEnergyLimit: bigint;
  totalEnergyWeight: bigint;
}

/** An account's Stake 2.0 position for energy, in sun. */
export interface TronEnergyStake {
  /** Liquid TRX. */
  balance: bigint;
  /** Staked for energy and not delegated. */
  staked: bigint;
  /** Staked for energy and delegated to other accounts. */
  delegated: bigint;
  /** Delegated to this account by others. */
  acquired: bigint;
  /** Unstaked and waiting for the unfreeze delay (ms since epoch). */
  unfreezing: { amount: bigint; expiresAt: number }[];
}

const max0 = (n: bigint) => (n > 0n ? n : 0n);
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** Energy the account can spend now without burning TRX. */
export function energyAvailable(r: Pick<TronAccountResources, 'energyLimit' | 'energyUsed'>): bigint {
  return max0(r.energyLimit - r.energyUsed);
}

/** Free bandwidth (bytes) the account can spend now. */
export function freeBandwidthAvailable(r: Pick<TronAccountResources, 'freeBandwidthLimit' | 'freeBandwidthUsed'>): bigint {
  return max0(r.freeBandwidthLimit - r.freeBandwidthUsed);
}

/** The daily energy `sun` of stake yields at the network's current ratio (java-tron: whole TRX × limit ÷ weight). */
export function energyOfStake(sun: bigint, r: Pick<TronAccountResources, 'totalEnergyLimit' | 'totalEnergyWeight'>): bigint {
  if (r.totalEnergyWeight <= 0n) return 0n;
  return ((sun / SUN_PER_TRX) * r.totalEnergyLimit) / r.totalEnergyWeight;
}

/**
 * The stake (sun, whole TRX, at least 1 TRX) to delegate so that the
 * receiver gets at least `energy` at the network's current ratio. One TRX
 * more than the exact share: the ratio moves with every stake on the network
 * between this read and the delegation's block.
 */
export function stakeForEnergy(energy: bigint, r: Pick<TronAccountResources, 'totalEnergyLimit' | 'totalEnergyWeight'>): bigint {
  if (r.totalEnergyLimit <= 0n) throw new Error('the network reports no energy limit');
  const trx = ceilDiv(energy * r.totalEnergyWeight, r.totalEnergyLimit) + 1n;
  return (trx < 1n ? 1n : trx) * SUN_PER_TRX;
}

/**
 * What an account may still delegate for energy (sun, whole TRX): its stake
 * less the part its own usage stands for (java-tron's DelegateResource rule:
 * usage × 1e6 × total weight ÷ total limit).
 */
export function delegableStake(stake: Pick<TronEnergyStake, 'staked'>, r: Pick<TronAccountResources, 'energyUsed' | 'totalEnergyLimit' | 'totalEnergyWeight'>): bigint {
  if (r.totalEnergyLimit <= 0n) return 0n;
  const used = ceilDiv(r.energyUsed * SUN_PER_TRX * r.totalEnergyWeight, r.totalEnergyLimit);
  const free = max0(stake.staked - used);
  return (free / SUN_PER_TRX) * SUN_PER_TRX;
}

/** Unstaked TRX whose delay has passed at `now` (withdrawable), and what still waits. */
export function unfreezingAt(stake: Pick<TronEnergyStake, 'unfreezing'>, now: number): { withdrawable: bigint; waiting: bigint } {
  let withdrawable = 0n;
  let waiting = 0n;
  for (const u of stake.unfreezing) {
    if (u.expiresAt <= now) withdrawable += u.amount;
    else waiting += u.amount;
  }
  return { withdrawable, waiting };
}

/** The energy a transfer needs with a margin (percent over the node's estimate), rounded up. */
export function energyWithMargin(estimate: bigint, marginPercent: number): bigint {
  if (!Number.isInteger(marginPercent) || marginPercent < 0) throw new Error('the energy margin is a whole, non-negative percentage');
  return ceilDiv(estimate * BigInt(100 + marginPercent), 100n);
}

/** The Stake 2.0 transactions the service signs, all for ENERGY. */
export type StakeOperation =
  | { kind: 'stake'; amount: bigint }
  | { kind: 'delegate'; receiver: string; amount: bigint }
  | { kind: 'reclaim'; receiver: string; amount: bigint }
  | { kind: 'unstake'; amount: bigint }
  | { kind: 'withdraw_unstaked' };

/** A TRON network's Stake 2.0 reads (the TRON adapter): what an energy plan rests on. */
export interface EnergyChain {
  /** The account's resources now; null when it was never activated. */
  resources(address: string): Promise<TronAccountResources | null>;
  /** The account's energy stake, delegations and unstaking; null when it was never activated. */
  stake(address: string): Promise<TronEnergyStake | null>;
  /** Sun of energy stake `from` has delegated to `to` (0 when none): one backend's read. */
  delegatedTo(from: string, to: string): Promise<bigint>;
  /** The same as every node shows it, each past block `since`; null when one is behind, cannot say, or they disagree. */
  delegatedOnEveryNode(from: string, to: string, since: bigint): Promise<bigint | null>;
}

/** Whether a chain's adapter reads Stake 2.0 (the TRON adapter does). */
export const isEnergyChain = (x: object): x is EnergyChain =>
  typeof (x as Partial<EnergyChain>).resources === 'function' && typeof (x as Partial<EnergyChain>).stake === 'function';
