// The double-entry journal (docs/api.md#balances). Every movement is one
// entry whose signed postings sum to zero (credit positive). Workspace
// accounts (AVAILABLE, LOCKED) can never go negative — a named rule, like
// TigerBeetle's debits_must_not_exceed_credits; the service's own accounts may
// (TREASURY is the assets held, a debit balance). An entry is tied to the
// business record that caused it by a unique reference, so it can never be
// posted twice.
import { DomainError } from '../errors.js';
import type { Asset, LedgerCurrency, Network } from '../money/networks.js';

export type LedgerAccountKind = 'AVAILABLE' | 'LOCKED' | 'REVENUE' | 'GAS' | 'TREASURY' | 'FAUCET' | 'EXTERNAL' | 'RECEIVABLE' | 'COLD' | 'COLD_IN_TRANSIT';

/** Accounts whose balance must never go below zero. */
export const NON_NEGATIVE_KINDS: ReadonlySet<LedgerAccountKind> = new Set(['AVAILABLE', 'LOCKED']);

/** Owner of the service's own accounts. */
export const SERVICE_OWNER = 'SERVICE';

export interface AccountRef {
  kind: LedgerAccountKind;
  /** A workspace id, or SERVICE_OWNER. */
  owner: string;
  network: Network;
  asset: LedgerCurrency;
}

/** A quantity the ledger books: base units of a ledger currency (an Amount is one). */
export interface Quantity {
  readonly asset: LedgerCurrency;
  /** Base units of the API precision (TRX: sun). */
  readonly units: bigint;
}

export interface Posting {
  account: AccountRef;
  /** Signed base units of the API precision: credit positive, debit negative. */
  amount: bigint;
}

export type EntryKind =
  | 'DEPOSIT_CREDIT'
  | 'DEPOSIT_REVERSAL'
  | 'WITHDRAWAL_LOCK'
  | 'WITHDRAWAL_CONSUME'
  | 'WITHDRAWAL_RELEASE'
  | 'WITHDRAWAL_REFUND'
  | 'WITHDRAWAL_REFUND_REVERSAL'
  | 'COMMITMENT_DEBIT'
  | 'FAUCET_DRIP'
  | 'SWEEP_GAS'
  | 'SERVICE_FUNDING'
  | 'COLD_FORWARD'
  | 'COLD_FORWARD_ARRIVED'
  | 'COLD_FORWARD_RETURNED'
  | 'COLD_REFILL';

export interface JournalEntry {
  id: string;
  kind: EntryKind;
  /** Unique per business effect, e.g. `deposit:<id>:credit`. */
  reference: string;
  /** The workspace the entry concerns, if any (volume, audits). */
  workspaceId: string | null;
  network: Network;
  asset: LedgerCurrency;
  postings: Posting[];
  createdAt: Date;
}

/** Refuses an entry that is not a proper double entry of one asset. */
export function assertBalanced(entry: JournalEntry): void {
  const fail = (why: string) => {
    throw new DomainError('UNPROCESSABLE', `journal entry ${entry.reference} ${why}`);
  };
  if (entry.postings.length < 2) fail('needs at least two postings');
  if (entry.postings.some((p) => p.amount === 0n)) fail('has a zero posting');
  if (entry.postings.some((p) => p.account.asset !== entry.asset || p.account.network !== entry.network)) {
    fail('mixes assets or networks');
  }
  if (entry.postings.reduce((sum, p) => sum + p.amount, 0n) !== 0n) fail('does not balance');
}

export const accountKey = (a: AccountRef): string => `${a.owner}|${a.kind}|${a.network}|${a.asset}`;

/** The balances of a workspace for one asset on one network (docs/api.md#balances). */
export interface Balance {
  network: Network;
  asset: Asset;
  available: bigint;
  locked: bigint;
}
