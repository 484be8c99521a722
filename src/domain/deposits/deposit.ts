// A deposit and its lifecycle (docs/api.md#deposits-and-sweeps): DETECTED when
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
