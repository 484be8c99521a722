// Money that arrives where no wallet watches it (issue 31, ADR 0032): a
// supported asset sent to a deposit address whose wallet is of another asset
// (USDC to a USDT address, ETH to a token wallet). It is recorded apart from
// deposits, never credited on its own and never told to the workspace; the
// operator recovers it once, either by crediting it to the wallet's
// workspace as a deposit of what it is (the deposit pipeline then confirms,
// credits and sweeps it) or by returning it to its sender. Pure.
import type { ObservedTransfer } from '../chains/chain-port.js';
import { DomainError } from '../errors.js';
import type { Asset, Network } from '../money/networks.js';

/** LISTED until the operator decides; CREDITED (a deposit now), or RETURNING until the return transfer is confirmed, then RETURNED (LISTED again if it failed). */
export type UnexpectedStatus = 'LISTED' | 'CREDITED' | 'RETURNING' | 'RETURNED';

export const UNEXPECTED_STATUSES: readonly UnexpectedStatus[] = ['LISTED', 'CREDITED', 'RETURNING', 'RETURNED'];

export interface UnexpectedDeposit {
  id: string;
  network: Network;
  /** What arrived (not the wallet's asset). */
  asset: Asset;
  walletId: string;
  workspaceId: string;
  /** The wallet's own asset, for the operator's eyes. */
  walletAsset: Asset;
  txid: string;
  logIndex: number | null;
  fromAddress: string;
  toAddress: string;
  /** Base units on chain. */
  chainAmount: bigint;
  blockNumber: bigint;
  blockHash: string;
  status: UnexpectedStatus;
  /** The deposit it became (CREDITED). */
  depositId: string | null;
  /** The transfer that sent it back (RETURNED). */
  returnTransferId: string | null;
  detectedAt: Date;
  resolvedAt: Date | null;
}

/** The wallet a transfer reached, as far as sorting it needs. */
export interface ReachedWallet {
  id: string;
  workspaceId: string;
  asset: Asset;
}

/**
 * A transfer to a deposit address of another asset than its wallet's, as an
 * unexpected arrival; null when it is the wallet's own asset (a deposit), its
 * sender is one of the service's own addresses (a gas top-up, the faucet), or
 * it moved nothing.
 */
export function unexpectedArrival(
  t: ObservedTransfer,
  wallet: ReachedWallet,
  isServiceSender: (address: string) => boolean,
  id: string,
  now: Date,
): UnexpectedDeposit | null {
  if (wallet.asset === t.asset || t.amount === 0n || isServiceSender(t.from)) return null;
  return {
    id,
    network: t.network,
    asset: t.asset,
    walletId: wallet.id,
    workspaceId: wallet.workspaceId,
    walletAsset: wallet.asset,
    txid: t.txid,
    logIndex: t.logIndex,
    fromAddress: t.from,
    toAddress: t.to,
    chainAmount: t.amount,
    blockNumber: t.block.number,
    blockHash: t.block.hash,
    status: 'LISTED',
    depositId: null,
    returnTransferId: null,
    detectedAt: now,
    resolvedAt: null,
  };
}

/** A recovery the arrival's status forbids: a CONFLICT, whoever asked. */
export class UnexpectedStateError extends DomainError {
  constructor(
    readonly arrival: UnexpectedDeposit,
    action: string,
  ) {
    super('CONFLICT', `the unexpected arrival ${arrival.id} is ${arrival.status}: it cannot ${action} (an arrival is recovered once)`);
  }
}

/** The operator credited it: it is the deposit `depositId` from now on. */
export function creditedAs(u: UnexpectedDeposit, depositId: string, at: Date): UnexpectedDeposit {
  if (u.status !== 'LISTED') throw new UnexpectedStateError(u, 'be credited');
  return { ...u, status: 'CREDITED', depositId, resolvedAt: at };
}

/** The operator asks for it to go back to its sender: the chain-worker sends it (a return sweep). */
export function toReturn(u: UnexpectedDeposit): UnexpectedDeposit {
  if (u.status === 'RETURNING') return u;
  if (u.status !== 'LISTED') throw new UnexpectedStateError(u, 'be returned');
  return { ...u, status: 'RETURNING' };
}

/** The return transfer `transferId` was confirmed. */
export function returned(u: UnexpectedDeposit, transferId: string, at: Date): UnexpectedDeposit {
  if (u.status !== 'RETURNING') throw new UnexpectedStateError(u, 'be returned');
  return { ...u, status: 'RETURNED', returnTransferId: transferId, resolvedAt: at };
}

/**
 * Its return transfer failed (the sender refuses it, a reverted call): LISTED again, for the operator to
 * decide anew, rather than tried again by itself and paying gas each time for the same failure.
 */
export function returnFailed(u: UnexpectedDeposit): UnexpectedDeposit {
  if (u.status !== 'RETURNING') throw new UnexpectedStateError(u, 'fail a return');
  return { ...u, status: 'LISTED' };
}
