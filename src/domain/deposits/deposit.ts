// A deposit and its lifecycle (docs/api.md#deposits): DETECTED when
// a transfer to a monitored address is seen in a block, CONFIRMING from its
// first confirmation beyond inclusion, CONFIRMED (credited) once it has the
// confirmations it needed when first seen, FAILED when its block was reorged
// out and the transfer is gone, FLAGGED when the sender is on the operator's
// deny list (never credited unless released). Pure: callers pass the head.
import type { Asset, Network } from '../money/networks.js';

export type DepositStatus = 'DETECTED' | 'CONFIRMING' | 'CONFIRMED' | 'SWEPT' | 'FAILED' | 'FLAGGED' | 'REJECTED';

/** A deposit is one (network, txid, log index): seen twice, it is still one. */
export const depositIdentity = (network: Network, txid: string, logIndex: number | null): string =>
  `${network}:${txid.toLowerCase()}:${logIndex ?? 'native'}`;

export interface DepositProgress {
  status: DepositStatus;
  blockNumber: bigint;
  /** Fixed when first seen; a later change of the network's threshold does not touch it. */
  requiredConfirmations: number;
  confirmations: number;
}

/** Confirmations of a transfer in block `included` when the head is `head`: 1 in its own block. */
export function confirmationsAt(included: bigint, head: bigint): number {
  if (head < included) return 0;
  const n = head - included + 1n;
  return n > 1_000_000n ? 1_000_000 : Number(n);
}

/**
 * The deposit at a new head: its confirmations, and the status they give.
 * `credit` is true exactly when this step reaches CONFIRMED (the caller
 * credits the ledger in the same transaction). Only DETECTED and CONFIRMING
 * deposits move; FLAGGED waits for the operator, the rest are final here.
 */
export function atHead(d: DepositProgress, head: bigint): { next: DepositProgress; credit: boolean } {
  if (d.status !== 'DETECTED' && d.status !== 'CONFIRMING') return { next: d, credit: false };
  const confirmations = Math.max(d.confirmations, confirmationsAt(d.blockNumber, head));
  if (confirmations >= d.requiredConfirmations) return { next: { ...d, confirmations, status: 'CONFIRMED' }, credit: true };
  const status: DepositStatus = confirmations > 1 ? 'CONFIRMING' : 'DETECTED';
  return { next: { ...d, confirmations, status }, credit: false };
}

/**
 * The confirmations to show for a deposit when the scanner has read up to
 * `tip`. An open deposit's stored count is written when its status changes
 * (not at every block: that would rewrite every open deposit at every step),
 * so it is brought up to the tip here, below its threshold (reaching it is
 * the scanner's credit, in the same transaction as the tip). Other statuses
 * show what was stored when they left the open states.
 */
export function shownConfirmations(d: DepositProgress, tip: bigint | null): number {
  if ((d.status !== 'DETECTED' && d.status !== 'CONFIRMING') || tip === null) return d.confirmations;
  return Math.max(d.confirmations, Math.min(d.requiredConfirmations - 1, confirmationsAt(d.blockNumber, tip)));
}

/** A deposit whose block was reorged out: FAILED when its transfer is gone, else kept with its identity in the new block. */
export function afterReorg(d: DepositProgress, reincludedAt: bigint | null): DepositProgress {
  if (d.status !== 'DETECTED' && d.status !== 'CONFIRMING') return d;
  if (reincludedAt === null) return { ...d, status: 'FAILED' };
  return { ...d, blockNumber: reincludedAt, confirmations: 0, status: 'DETECTED' };
}

export interface NewDeposit {
  network: Network;
  asset: Asset;
  txid: string;
  logIndex: number | null;
  walletId: string;
  workspaceId: string;
  from: string;
  to: string;
  amount: bigint;
}

/** A deposit as the service keeps it. Amounts in base units: `chainAmount` on chain, `amount` in API precision. */
export interface Deposit {
  id: string;
  workspaceId: string;
  walletId: string;
  customerId: string | null;
  network: Network;
  asset: Asset;
  txid: string;
  logIndex: number | null;
  fromAddress: string;
  toAddress: string;
  chainAmount: bigint;
  /** The credited gross: chainAmount in API precision, sub-precision dust rounded down (USDT_BSC). */
  amount: bigint;
  blockNumber: bigint;
  blockHash: string;
  status: DepositStatus;
  confirmations: number;
  requiredConfirmations: number;
  /** Set at credit (fee_record); the rate and minimum go on DEPOSIT_SWEPT's fee object. */
  fee: DepositFee | null;
  detectedAt: Date;
  confirmedAt: Date | null;
  sweptAt: Date | null;
  updatedAt: Date;
}

export interface DepositFee {
  feeAmount: bigint;
  netAmount: bigint;
  appliedRatePpm: bigint;
  appliedMinFee: bigint;
}

/**
 * The fee of a deposit credit from the engine's charge, capped at the gross:
 * a deposit smaller than the minimum fee is credited with net zero (the whole
 * amount is the fee) rather than taking from the workspace's balance.
 */
export function depositFee(charged: { fee: bigint; appliedRatePpm: bigint; minFee: bigint }, gross: bigint): DepositFee {
  const fee = charged.fee > gross ? gross : charged.fee;
  return { feeAmount: fee, netAmount: gross - fee, appliedRatePpm: charged.appliedRatePpm, appliedMinFee: charged.minFee };
}

/** Statuses whose transfer may still be moved by the chain (not yet credited, not decided by an operator). */
export const OPEN_STATUSES: readonly DepositStatus[] = ['DETECTED', 'CONFIRMING'];

/** Statuses the scanner re-checks after a reorg: the open ones, and credited or flagged ones (a deeper reorg). */
export const REORG_CHECKED_STATUSES: readonly DepositStatus[] = ['DETECTED', 'CONFIRMING', 'CONFIRMED', 'FLAGGED'];
