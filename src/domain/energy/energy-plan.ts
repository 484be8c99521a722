// Where a TRON transfer's energy comes from (ADR 0035): the operator's
// source per network, and the decision for one transfer — lend energy from
// the energy account's stake, or burn TRX for it as before. Pure: the
// caller reads the chain and the books and passes what it found.
import type { Network } from '../money/networks.js';
import { energyWithMargin, stakeForEnergy, type TronAccountResources } from './resources.js';

export const ENERGY_SOURCES = ['burn', 'stake'] as const;
export type EnergySourceKind = (typeof ENERGY_SOURCES)[number];

/** The operator's energy setting of one TRON network. */
export interface EnergyPolicy {
  network: Network;
  source: EnergySourceKind;
  /** Percent lent over the node's estimate of a transfer's energy. */
  marginPercent: number;
  /** The longest a transfer waits for lent energy before it burns instead. */
  maxWaitSeconds: number;
  updatedAt: Date | null;
}

export const DEFAULT_MARGIN_PERCENT = 10;
export const DEFAULT_MAX_WAIT_SECONDS = 120;
/** Bounds an operator may set: a margin up to doubling the estimate, a wait up to an hour. */
export const MAX_MARGIN_PERCENT = 100;
export const MAX_WAIT_SECONDS = 3600;
/**
 * A loan counts as landed once its delegation is confirmed: 19 blocks, about a minute on mainnet. A shorter
 * wait would pay for loans (and their take-backs) that every transfer gives up on before they land.
 */
export const MIN_WAIT_SECONDS = 60;

/** A network with no setting burns, as the service did before it could stake. */
export const defaultEnergyPolicy = (network: Network): EnergyPolicy => ({
  network,
  source: 'burn',
  marginPercent: DEFAULT_MARGIN_PERCENT,
  maxWaitSeconds: DEFAULT_MAX_WAIT_SECONDS,
  updatedAt: null,
});

/** Why a transfer burns TRX for its energy instead of borrowing it. */
export type BurnReason = 'source_is_burn' | 'not_enough_stake' | 'waited_too_long' | 'energy_account_low';

export type EnergyDecision =
  /** Lend `stake` sun of the energy account's stake, which yields at least `energy` to the sender. */
  | { kind: 'lend'; energy: bigint; stake: bigint }
  | { kind: 'burn'; reason: BurnReason };

/**
 * The energy of one transfer that needs `estimate` energy (the node's dry run):
 * lent when the source is `stake` and the energy account can lend that much
 * (with the margin) beyond what it has promised already; burnt otherwise.
 */
export function decideEnergy(input: {
  policy: Pick<EnergyPolicy, 'source' | 'marginPercent'>;
  estimate: bigint;
  /** Sun of stake the energy account may delegate now (delegableStake), less what open plans have promised. */
  lendable: bigint;
  network: Pick<TronAccountResources, 'totalEnergyLimit' | 'totalEnergyWeight'>;
}): EnergyDecision {
  if (input.policy.source === 'burn') return { kind: 'burn', reason: 'source_is_burn' };
  if (input.estimate <= 0n) throw new Error('a transfer that needs no energy needs no plan');
  const energy = energyWithMargin(input.estimate, input.policy.marginPercent);
  const stake = stakeForEnergy(energy, input.network);
  if (stake > input.lendable) return { kind: 'burn', reason: 'not_enough_stake' };
  return { kind: 'lend', energy, stake };
}

/** Whether a delegation asked for at `since` has waited past the policy's longest wait at `now`. */
export function waitedTooLong(policy: Pick<EnergyPolicy, 'maxWaitSeconds'>, since: Date, now: Date): boolean {
  return now.getTime() - since.getTime() > policy.maxWaitSeconds * 1000;
}

/** The operator's setting, checked: a margin and a wait within bounds. */
export function energyPolicy(network: Network, source: EnergySourceKind, marginPercent: number, maxWaitSeconds: number, at: Date): EnergyPolicy {
  if (!Number.isInteger(marginPercent) || marginPercent < 0 || marginPercent > MAX_MARGIN_PERCENT) throw new RangeError(`the margin is a whole percentage, 0 to ${MAX_MARGIN_PERCENT}`);
  if (!Number.isInteger(maxWaitSeconds) || maxWaitSeconds < MIN_WAIT_SECONDS || maxWaitSeconds > MAX_WAIT_SECONDS) {
    throw new RangeError(`the longest wait is a whole number of seconds, ${MIN_WAIT_SECONDS} to ${MAX_WAIT_SECONDS}`);
  }
  return { network, source, marginPercent, maxWaitSeconds, updatedAt: at };
}
