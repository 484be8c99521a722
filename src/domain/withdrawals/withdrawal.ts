// A withdrawal and its lifecycle (docs/api.md#withdrawals): the amount is
// locked from available when it is requested; the fee is taken and the net
// leaves custody when its transaction is broadcast; it is confirmed on chain,
// or fails with the whole amount back. Pure: callers pass the time and what
// happened.
//
//   PENDING_APPROVAL  above the owner's approval threshold: waits for approve or reject
//   PENDING           waiting to be sent; the chain-worker picks it up (transferId set)
//   UNDER_REVIEW      held by compliance (operator hold) until released
//   PROCESSING        its transaction was broadcast: the lock is consumed
//   CONFIRMING        in a block
//   CONFIRMED         with the network's confirmations
//   FAILED            reverted, or dropped for good: the amount is back in available
//   CANCELLED         cancelled or rejected before it was picked up: the lock released
//
// A cancel and the chain-worker's pick-up race for the same row lock: the
// pick-up records the transfer it requested (transferId), and from then on a
// cancel is refused, so exactly one of them wins.
import { DomainError } from '../errors.js';
import type { Asset, Network } from '../money/networks.js';

export type WithdrawalStatus = 'PENDING_APPROVAL' | 'PENDING' | 'UNDER_REVIEW' | 'PROCESSING' | 'CONFIRMING' | 'CONFIRMED' | 'FAILED' | 'CANCELLED';

export const WITHDRAWAL_STATUSES: readonly WithdrawalStatus[] = [
  'PENDING_APPROVAL',
  'PENDING',
  'UNDER_REVIEW',
  'PROCESSING',
  'CONFIRMING',
  'CONFIRMED',
  'FAILED',
  'CANCELLED',
];

/** States that still hold the amount locked (not consumed, not released). */
export const LOCKED_STATUSES: readonly WithdrawalStatus[] = ['PENDING_APPROVAL', 'PENDING', 'UNDER_REVIEW'];

export interface Withdrawal {
  id: string;
  workspaceId: string;
  network: Network;
  asset: Asset;
  /** Gross debited from the balance, API precision. */
  amount: bigint;
  /** The flat withdrawal fee, API precision. */
  fee: bigint;
  /** What the destination receives: amount − fee. */
  netAmount: bigint;
  destination: string;
  status: WithdrawalStatus;
  idempotencyKey: string | null;
  /** The outgoing transfer that pays it out, once the chain-worker picked it up. */
  transferId: string | null;
  txid: string | null;
  failure: string | null;
  requestedAt: Date;
  confirmedAt: Date | null;
  updatedAt: Date;
}

export class WithdrawalStateError extends Error {
  constructor(
    readonly withdrawal: Pick<Withdrawal, 'id' | 'status'>,
    action: string,
  ) {
    super(`withdrawal ${withdrawal.id} is ${withdrawal.status}: cannot ${action}`);
    this.name = 'WithdrawalStateError';
  }
}

const move = (w: Withdrawal, from: readonly WithdrawalStatus[], to: WithdrawalStatus, action: string, at: Date, extra: Partial<Withdrawal> = {}): Withdrawal => {
  if (!from.includes(w.status)) throw new WithdrawalStateError(w, action);
  return { ...w, ...extra, status: to, updatedAt: at };
};

/** The owner approved it (ops withdrawal approve). */
export const approved = (w: Withdrawal, at: Date) => move(w, ['PENDING_APPROVAL'], 'PENDING', 'approve', at);

/** Compliance holds it before it is picked up (ops withdrawal hold). */
export function held(w: Withdrawal, at: Date): Withdrawal {
  if (w.status === 'PENDING' && w.transferId !== null) throw new WithdrawalStateError(w, 'hold (it is being sent)');
  return move(w, ['PENDING'], 'UNDER_REVIEW', 'hold', at);
}

/** Compliance releases it (ops withdrawal release). */
export const released = (w: Withdrawal, at: Date) => move(w, ['UNDER_REVIEW'], 'PENDING', 'release', at);

/** Whether it can still be cancelled: not picked up, and in a state that holds the lock. */
export const isCancellable = (w: Withdrawal): boolean => LOCKED_STATUSES.includes(w.status) && w.transferId === null;

/** Cancelled by the integrator or rejected by the owner or the operator: WITHDRAWAL_NOT_CANCELLABLE once it is being sent. */
export function cancelled(w: Withdrawal, at: Date): Withdrawal {
  if (!isCancellable(w)) {
    throw new DomainError('WITHDRAWAL_NOT_CANCELLABLE', `Withdrawal ${w.id} is ${w.status === 'PENDING' ? 'being sent' : w.status} and can no longer be cancelled`);
  }
  return { ...w, status: 'CANCELLED', updatedAt: at };
}

/** The chain-worker requested the transfer that pays it out. */
export function pickedUp(w: Withdrawal, transferId: string, at: Date): Withdrawal {
  if (w.status !== 'PENDING' || w.transferId !== null) throw new WithdrawalStateError(w, 'be picked up');
  return { ...w, transferId, updatedAt: at };
}

/** Its transaction was broadcast: the lock is consumed. */
export function processing(w: Withdrawal, txid: string, at: Date): Withdrawal {
  if (w.transferId === null) throw new WithdrawalStateError(w, 'be broadcast before it is picked up');
  return move(w, ['PENDING'], 'PROCESSING', 'be broadcast', at, { txid });
}

/** In a block (under `txid`, which a replacement may have changed). */
export const confirming = (w: Withdrawal, txid: string, at: Date) => move(w, ['PROCESSING'], 'CONFIRMING', 'be included', at, { txid });

/** Its block was reorganised out and its transaction is waiting to be included again. */
export const unconfirming = (w: Withdrawal, at: Date) => move(w, ['CONFIRMING'], 'PROCESSING', 'leave its block', at);

export const confirmedWithdrawal = (w: Withdrawal, txid: string, at: Date) =>
  move(w, ['PROCESSING', 'CONFIRMING'], 'CONFIRMED', 'confirm', at, { txid, confirmedAt: at });

/** Reverted, dropped, or reorged out for good: the whole amount goes back. */
export const failedWithdrawal = (w: Withdrawal, reason: string, at: Date) => move(w, ['PENDING', 'PROCESSING', 'CONFIRMING'], 'FAILED', 'fail', at, { failure: reason });
