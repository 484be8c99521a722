// One loan of energy from the energy account to the address that must send
// (ADR 0035), and its lifecycle. Pure: callers pass the time and what the
// pipeline reported. Each state is recorded before what follows it, so a
// chain-worker killed at any point leaves a loan the next one finishes:
//
//   DELEGATING  the ENERGY_DELEGATE transfer is requested, in the same
//               transaction as the plan that wants the energy.
//   DELEGATED   that transfer is CONFIRMED: the receiver holds the energy;
//               what wanted it (a sweep) may now send.
//   RECLAIMING  the ENERGY_RECLAIM transfer is requested, in the same
//               transaction that ended what used the energy (or gave up
//               waiting for it).
//   RECLAIMED   the take-back is CONFIRMED: nothing stays delegated.
//   CANCELLED   the delegation itself FAILED (never on chain): nothing to
//               take back.
//
// A take-back that fails is asked again (a new transfer) until one is
// confirmed: energy never stays with a deposit address.
import type { BurnReason, EnergyPolicy } from './energy-plan.js';

export const DELEGATION_STATUSES = ['DELEGATING', 'DELEGATED', 'RECLAIMING', 'RECLAIMED', 'CANCELLED'] as const;
export type DelegationStatus = (typeof DELEGATION_STATUSES)[number];

/** What borrowed the energy. */
export type DelegationPurpose = 'SWEEP' | 'WITHDRAWAL' | 'FAUCET';

export interface EnergyDelegation {
  id: string;
  network: string;
  /** The energy account (owner of the stake) and the address that borrows. */
  from: string;
  receiver: string;
  /** Sun of stake delegated, and the energy it was meant to give. */
  stake: bigint;
  energy: bigint;
  purpose: DelegationPurpose;
  purposeId: string;
  status: DelegationStatus;
  delegateTransferId: string;
  reclaimTransferId: string | null;
  /** Take-backs that failed before the current one. */
  reclaimFailures: number;
  /** Sun the transfer's energy would have burnt without the loan (the node's estimate × the energy price). */
  burnEquivalent: bigint;
  /** The transfer that went on this loan's energy (what it saved is counted from its receipt); null while none did. */
  usedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export class DelegationStateError extends Error {
  constructor(d: Pick<EnergyDelegation, 'id' | 'status'>, action: string) {
    super(`delegation ${d.id} is ${d.status}: cannot ${action}`);
    this.name = 'DelegationStateError';
  }
}

/** The delegation transfer is confirmed: the receiver holds the energy. */
export function delegated(d: EnergyDelegation, at: Date): EnergyDelegation {
  if (d.status !== 'DELEGATING') throw new DelegationStateError(d, 'be delegated');
  return { ...d, status: 'DELEGATED', updatedAt: at };
}

/** The delegation transfer failed: nothing reached the receiver, nothing to take back. */
export function cancelled(d: EnergyDelegation, at: Date): EnergyDelegation {
  if (d.status !== 'DELEGATING') throw new DelegationStateError(d, 'be cancelled');
  return { ...d, status: 'CANCELLED', updatedAt: at };
}

/** A take-back is requested (the first, or another after one failed). */
export function reclaiming(d: EnergyDelegation, transferId: string, at: Date): EnergyDelegation {
  if (d.status !== 'DELEGATED' && d.status !== 'RECLAIMING') throw new DelegationStateError(d, 'be taken back');
  return { ...d, status: 'RECLAIMING', reclaimTransferId: transferId, updatedAt: at };
}

/** The take-back transfer failed: counted; the caller requests another. */
export function reclaimFailed(d: EnergyDelegation, at: Date): EnergyDelegation {
  if (d.status !== 'RECLAIMING') throw new DelegationStateError(d, 'fail a take-back');
  return { ...d, reclaimFailures: d.reclaimFailures + 1, updatedAt: at };
}

/** The take-back is confirmed (or the chain shows nothing delegated any more). */
export function reclaimed(d: EnergyDelegation, at: Date): EnergyDelegation {
  if (d.status !== 'RECLAIMING') throw new DelegationStateError(d, 'be reclaimed');
  return { ...d, status: 'RECLAIMED', updatedAt: at };
}

/** The transfer `transferId` goes on this loan's energy. */
export function usedBy(d: EnergyDelegation, transferId: string, at: Date): EnergyDelegation {
  if (d.status !== 'DELEGATED') throw new DelegationStateError(d, 'be used');
  return { ...d, usedBy: transferId, updatedAt: at };
}

/** Whether the stake of this loan is still out (promised or with the receiver). */
export const stakeOut = (d: Pick<EnergyDelegation, 'status'>): boolean => d.status === 'DELEGATING' || d.status === 'DELEGATED' || d.status === 'RECLAIMING';

/** Energy policies and loans, in the unit of work (ADR 0035). */
export interface EnergyRepo {
  /** The operator's settings of every TRON network that has one. */
  policies(): Promise<EnergyPolicy[]>;
  setPolicy(policy: EnergyPolicy): Promise<void>;
  /** Serialises the planning of loans from the network's stake until the transaction ends (one lender across chain-workers). */
  lockLender(network: string): Promise<void>;
  /** Records a loan; false when the sweep or payout already has an open one (nothing written). */
  add(d: EnergyDelegation): Promise<boolean>;
  /** Writes status, take-back transfer, failures, the transfer that used it, and time. */
  save(d: EnergyDelegation): Promise<void>;
  /** The open loan of a sweep or payout, locked until the transaction ends. */
  openFor(purpose: DelegationPurpose, purposeId: string): Promise<EnergyDelegation | null>;
  /** The loan a delegate or take-back transfer belongs to, locked. */
  byTransfer(transferId: string): Promise<EnergyDelegation | null>;
  /** Sun of the network's stake promised or lent by open loans. */
  stakeOut(network: string): Promise<bigint>;
  /**
   * The network's open loans; those lent or asked for (their take-back still to ask); and those whose take-back
   * failed at least once or was asked before `slowBefore` and is not confirmed yet.
   */
  openCounts(network: string, slowBefore: Date): Promise<{ open: number; lent: number; failing: number }>;
  /** Sun of stake asked for by loans whose delegation is in no block yet. */
  promisedStake(network: string): Promise<bigint>;
  /** Loans of a sweep or payout that ended with nothing sent on them (taken back unused, or never delegated). */
  unusedLoans(purpose: DelegationPurpose, purposeId: string): Promise<number>;
  /** The network's loans in a status, oldest first. */
  list(network: string, statuses: readonly DelegationStatus[], limit: number): Promise<EnergyDelegation[]>;
  /** Why a sweep or payout burns though the source is the stake, once recorded; null while it has not fallen back. */
  fallbackOf(purpose: DelegationPurpose, purposeId: string): Promise<BurnReason | null>;
  /** Records that a transfer burnt though the source is the stake; false when it was recorded before. */
  recordFallback(network: string, purpose: DelegationPurpose, purposeId: string, reason: string, at: Date): Promise<boolean>;
  /**
   * Since `since`: fallbacks; loans taken back; and the sun saved by the confirmed transfers that went on lent
   * energy (what each would have burnt without its loan, less what its receipt shows it paid).
   */
  summary(network: string, since: Date): Promise<{ fallbacks: number; reclaimed: number; burnAvoided: bigint }>;
}
