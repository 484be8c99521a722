// The movements the service books, each one balanced journal entry. Amounts
// are positive Amounts of the entry's asset; signs are decided here.
import type { Amount } from '../money/amount.js';
import type { Network } from '../money/networks.js';
import { SERVICE_OWNER, assertBalanced, type AccountRef, type EntryKind, type JournalEntry, type LedgerAccountKind, type Quantity } from './journal.js';

interface Base {
  id: string;
  network: Network;
  at: Date;
}

const account = (kind: LedgerAccountKind, owner: string, network: Network, amount: Quantity): AccountRef => ({
  kind,
  owner,
  network,
  asset: amount.asset,
});

function entry(
  base: Base,
  kind: EntryKind,
  reference: string,
  workspaceId: string | null,
  asset: Quantity,
  postings: [LedgerAccountKind, string, bigint][],
): JournalEntry {
  const e: JournalEntry = {
    id: base.id,
    kind,
    reference,
    workspaceId,
    network: base.network,
    asset: asset.asset,
    postings: postings
      .filter(([, , amount]) => amount !== 0n)
      .map(([k, owner, amount]) => ({ account: account(k, owner, base.network, asset), amount })),
    createdAt: base.at,
  };
  assertBalanced(e);
  return e;
}

/**
 * The reference of a deposit's credit or reversal in its `cycle`: a deposit credited, reversed by a
 * deep reorg and found again on chain is credited again (ADR 0021). The first cycle keeps the plain
 * reference (`deposit:<id>:credit`); the n-th (n > 1) is `deposit:<id>:credit:<n>`, so each credit and
 * each reversal is posted once, and a replayed step never credits twice.
 */
export const depositReference = (depositId: string, side: 'credit' | 'reversal', cycle: number): string =>
  cycle === 0 ? `deposit:${depositId}:${side}` : `deposit:${depositId}:${side}:${cycle + 1}`;

/** A confirmed deposit: the gross arrives in custody, net to the workspace, fee to revenue. */
export const creditDeposit = (b: Base & { depositId: string; cycle?: number; workspaceId: string; gross: Amount; fee: Amount }) =>
  entry(b, 'DEPOSIT_CREDIT', depositReference(b.depositId, 'credit', b.cycle ?? 0), b.workspaceId, b.gross, [
    ['TREASURY', SERVICE_OWNER, -b.gross.units],
    ['AVAILABLE', b.workspaceId, b.gross.units - b.fee.units],
    ['REVENUE', SERVICE_OWNER, b.fee.units],
  ]);

/**
 * A credited deposit whose transfer a reorg deeper than its confirmations
 * removed (ADR 0021): the credit is reversed by a new entry, never edited.
 * What the workspace still has available is taken back; the rest of the net
 * becomes the workspace's RECEIVABLE (what it owes the service).
 */
export const reverseDepositCredit = (
  b: Base & { depositId: string; cycle?: number; workspaceId: string; gross: Amount; fee: Amount; fromAvailable: Amount },
) =>
  entry(b, 'DEPOSIT_REVERSAL', depositReference(b.depositId, 'reversal', b.cycle ?? 0), b.workspaceId, b.gross, [
    ['TREASURY', SERVICE_OWNER, b.gross.units],
    ['AVAILABLE', b.workspaceId, -b.fromAvailable.units],
    ['RECEIVABLE', b.workspaceId, -(b.gross.units - b.fee.units - b.fromAvailable.units)],
    ['REVENUE', SERVICE_OWNER, -b.fee.units],
  ]);

/** A withdrawal request: the amount moves from available to locked (fails when available is short). */
export const lockForWithdrawal = (b: Base & { withdrawalId: string; workspaceId: string; amount: Amount }) =>
  entry(b, 'WITHDRAWAL_LOCK', `withdrawal:${b.withdrawalId}:lock`, b.workspaceId, b.amount, [
    ['AVAILABLE', b.workspaceId, -b.amount.units],
    ['LOCKED', b.workspaceId, b.amount.units],
  ]);

/** Broadcast: the lock is consumed, net leaves custody, the fee goes to revenue (docs/api.md#withdrawals). */
export const consumeLock = (b: Base & { withdrawalId: string; workspaceId: string; amount: Amount; fee: Amount }) =>
  entry(b, 'WITHDRAWAL_CONSUME', `withdrawal:${b.withdrawalId}:consume`, b.workspaceId, b.amount, [
    ['LOCKED', b.workspaceId, -b.amount.units],
    ['TREASURY', SERVICE_OWNER, b.amount.units - b.fee.units],
    ['REVENUE', SERVICE_OWNER, b.fee.units],
  ]);

/** Cancelled or rejected before broadcast: the lock goes back to available. */
export const releaseLock = (b: Base & { withdrawalId: string; workspaceId: string; amount: Amount }) =>
  entry(b, 'WITHDRAWAL_RELEASE', `withdrawal:${b.withdrawalId}:release`, b.workspaceId, b.amount, [
    ['LOCKED', b.workspaceId, -b.amount.units],
    ['AVAILABLE', b.workspaceId, b.amount.units],
  ]);

/** Failed after broadcast: the whole amount, fee included, returns to available (docs/api.md#withdrawals). */
export const refundFailedWithdrawal = (b: Base & { withdrawalId: string; workspaceId: string; amount: Amount; fee: Amount }) =>
  entry(b, 'WITHDRAWAL_REFUND', `withdrawal:${b.withdrawalId}:refund`, b.workspaceId, b.amount, [
    ['TREASURY', SERVICE_OWNER, -(b.amount.units - b.fee.units)],
    ['REVENUE', SERVICE_OWNER, -b.fee.units],
    ['AVAILABLE', b.workspaceId, b.amount.units],
  ]);

/**
 * A refunded withdrawal whose payout is on chain after all (an operator's
 * correction after the reconciliation named it, ADR 0031): the refund is
 * undone by a new entry. What the workspace still has available is taken
 * back; the rest becomes its RECEIVABLE, as for a reversed deposit.
 */
export const reverseRefund = (b: Base & { withdrawalId: string; workspaceId: string; amount: Amount; fee: Amount; fromAvailable: Amount }) =>
  entry(b, 'WITHDRAWAL_REFUND_REVERSAL', `withdrawal:${b.withdrawalId}:refund-reversal`, b.workspaceId, b.amount, [
    ['AVAILABLE', b.workspaceId, -b.fromAvailable.units],
    ['RECEIVABLE', b.workspaceId, -(b.amount.units - b.fromAvailable.units)],
    ['TREASURY', SERVICE_OWNER, b.amount.units - b.fee.units],
    ['REVENUE', SERVICE_OWNER, b.fee.units],
  ]);

/**
 * A commitment shortfall debited from available (docs/api.md#fee-commitment); never below zero. An
 * adjustment may be debited in several steps (what was available at settlement, then later top-ups):
 * each is told apart by what had been debited before it (USD units), which only grows.
 */
export const debitCommitment = (b: Base & { adjustmentId: string; debitedBefore: bigint; workspaceId: string; amount: Amount }) =>
  entry(b, 'COMMITMENT_DEBIT', `adjustment:${b.adjustmentId}:debit:${b.debitedBefore}`, b.workspaceId, b.amount, [
    ['AVAILABLE', b.workspaceId, -b.amount.units],
    ['REVENUE', SERVICE_OWNER, b.amount.units],
  ]);

/** A sandbox faucet drip leaves the dispenser; it comes back as a normal deposit credit. */
export const faucetDrip = (b: Base & { dripId: string; amount: Amount }) =>
  entry(b, 'FAUCET_DRIP', `faucet:${b.dripId}:drip`, null, b.amount, [
    ['FAUCET', SERVICE_OWNER, -b.amount.units],
    ['TREASURY', SERVICE_OWNER, b.amount.units],
  ]);

/** Gas spent on a sweep or a withdrawal (in the network's gas currency, TRX included): the service's cost, never the workspace's (docs/api.md#deposits). */
export const spendGas = (b: Base & { reference: string; gas: Quantity }) =>
  entry(b, 'SWEEP_GAS', `gas:${b.reference}`, null, b.gas, [
    ['GAS', SERVICE_OWNER, -b.gas.units],
    ['TREASURY', SERVICE_OWNER, b.gas.units],
  ]);

/** The operator funds the service's own addresses (gas tank, dispenser) from outside. */
export const fundService = (b: Base & { reference: string; amount: Amount }) =>
  entry(b, 'SERVICE_FUNDING', `funding:${b.reference}`, null, b.amount, [
    ['TREASURY', SERVICE_OWNER, -b.amount.units],
    ['EXTERNAL', SERVICE_OWNER, b.amount.units],
  ]);

/**
 * The treasury's surplus sent to cold storage (issue 31, ADR 0032): still
 * owed to customers, held elsewhere. Requested: it leaves the hot treasury
 * for COLD_IN_TRANSIT; confirmed, it is COLD; failed, it is back in the hot
 * treasury. No workspace's balance changes.
 */
export const forwardToCold = (b: Base & { transferId: string; amount: Amount }) =>
  entry(b, 'COLD_FORWARD', `cold-forward:${b.transferId}`, null, b.amount, [
    ['TREASURY', SERVICE_OWNER, b.amount.units],
    ['COLD_IN_TRANSIT', SERVICE_OWNER, -b.amount.units],
  ]);

export const coldForwardArrived = (b: Base & { transferId: string; amount: Amount }) =>
  entry(b, 'COLD_FORWARD_ARRIVED', `cold-forward:${b.transferId}:arrived`, null, b.amount, [
    ['COLD_IN_TRANSIT', SERVICE_OWNER, b.amount.units],
    ['COLD', SERVICE_OWNER, -b.amount.units],
  ]);

export const coldForwardReturned = (b: Base & { transferId: string; amount: Amount }) =>
  entry(b, 'COLD_FORWARD_RETURNED', `cold-forward:${b.transferId}:returned`, null, b.amount, [
    ['COLD_IN_TRANSIT', SERVICE_OWNER, b.amount.units],
    ['TREASURY', SERVICE_OWNER, -b.amount.units],
  ]);

/**
 * A refill a person sent from the cold address to the hot treasury (issue 31): money still owed to
 * customers, back in the hot treasury. `transferKey` is the transfer's txid and position on chain.
 */
export const refillFromCold = (b: Base & { transferKey: string; amount: Amount }) =>
  entry(b, 'COLD_REFILL', `cold-refill:${b.network}:${b.transferKey}`, null, b.amount, [
    ['COLD', SERVICE_OWNER, b.amount.units],
    ['TREASURY', SERVICE_OWNER, -b.amount.units],
  ]);
