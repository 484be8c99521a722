// What a read of the chain found, sorted (ADR 0021, ADR 0032): a transfer of
// its wallet's asset is a deposit; one of another supported asset is an
// unexpected arrival, recorded apart until the operator recovers it (one the
// operator credited is a deposit of its own asset from then on).
import type { ObservedTransfer } from '../../domain/chains/chain-port.js';
import type { ServiceRole } from '../../domain/custody/derivation.js';
import { confirmationsAt, depositIdentity, type Deposit } from '../../domain/deposits/deposit.js';
import { unexpectedArrival, type UnexpectedDeposit } from '../../domain/deposits/unexpected-deposit.js';
import { Amount } from '../../domain/money/amount.js';
import type { RandomSource, TxContext } from '../../domain/ports.js';
import type { Wallet } from '../../domain/wallets/wallet.js';

/** The transfers of one read, sorted: deposits of the wallets they reached, and money of another asset than its wallet's. */
export interface SortedTransfers {
  deposits: Deposit[];
  unexpected: UnexpectedDeposit[];
}

/**
 * The deposits of these transfers, for the wallets they reached, and the unexpected arrivals among
 * them (another supported asset than the wallet's; read in the caller's transaction). An arrival the
 * operator credited is a deposit of its own asset from then on: seen again (a rescan, a reorg), it
 * is sorted as one.
 */
export async function sortTransfers(
  tx: TxContext,
  transfers: ObservedTransfer[],
  required: number,
  tipOf: (t: ObservedTransfer) => bigint,
  now: Date,
  random: RandomSource,
  serviceRole: (address: string) => ServiceRole | null,
): Promise<SortedTransfers> {
  if (transfers.length === 0) return { deposits: [], unexpected: [] };
  const network = transfers[0]!.network;
  const wallets = new Map((await tx.wallets.byAddresses(network, transfers.map((t) => t.to))).map((w) => [w.address, w]));
  const foreign = transfers.filter((t) => {
    const w = wallets.get(t.to);
    return w !== undefined && w.asset !== t.asset;
  });
  const credited = await tx.unexpected.credited(network, foreign);
  const deposits: Deposit[] = [];
  const unexpected: UnexpectedDeposit[] = [];
  const isServiceSender = (address: string) => serviceRole(address) !== null;
  for (const t of transfers) {
    const wallet = wallets.get(t.to);
    // The gas tank's top-up of an address is the service's gas, never money of the wallet's (a native wallet
    // holding a credited token arrival is topped up for that token's sweep).
    if (!wallet || serviceRole(t.from) === 'gasTank') continue;
    if (wallet.asset === t.asset || credited.has(depositIdentity(network, t.txid, t.logIndex))) {
      const d = toDeposit(t, wallet, required, tipOf(t), now, random.uuid());
      if (d) deposits.push(d);
      continue;
    }
    const u = unexpectedArrival(t, wallet, isServiceSender, random.uuid(), now);
    if (u) unexpected.push(u);
  }
  return { deposits, unexpected };
}

/**
 * A transfer found by the adapter, as a deposit of the wallet it reached: of the wallet's own asset (a
 * wallet monitors its own asset), or of an arrival the operator credited (sortTransfers).
 */
export function toDeposit(t: ObservedTransfer, wallet: Wallet, required: number, tip: bigint, now: Date, id: string): Deposit | null {
  const amount = Amount.fromChainUnits(t.asset, t.amount).units;
  if (amount === 0n) return null; // dust below the API precision: nothing to credit
  return {
    id,
    workspaceId: wallet.workspaceId,
    walletId: wallet.id,
    customerId: wallet.customerId,
    network: t.network,
    asset: t.asset,
    txid: t.txid,
    logIndex: t.logIndex,
    fromAddress: t.from,
    toAddress: t.to,
    chainAmount: t.amount,
    amount,
    blockNumber: t.block.number,
    blockHash: t.block.hash,
    status: 'DETECTED',
    confirmations: confirmationsAt(t.block.number, tip),
    requiredConfirmations: required,
    fee: null,
    detectedAt: now,
    confirmedAt: null,
    sweptAt: null,
    updatedAt: now,
  };
}
