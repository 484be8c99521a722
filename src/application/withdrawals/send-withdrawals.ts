// The chain-worker's side of withdrawals (docs/api.md#withdrawals): each
// PENDING withdrawal not picked up yet becomes an outgoing transfer of its net
// from the network's treasury, requested in the same transaction that records
// the pick-up (so a cancel, which takes the same row lock, either comes first
// or is refused). Then each step follows its transfer:
//   broadcast            → PROCESSING: the lock is consumed (net out of custody, fee to revenue), WITHDRAWAL_PROCESSING
//   in a block           → CONFIRMING
//   confirmed (final)    → CONFIRMED, WITHDRAWAL_CONFIRMED with the fee object
//   failed (final)       → FAILED, the whole amount back to available, WITHDRAWAL_FAILED
// A treasury without the funds or the gas leaves the withdrawal waiting (it
// does not fail), and the later ones of the same asset behind it (all of them
// when gas is short); a frozen workspace's withdrawals wait too. A withdrawal
// that cannot be picked up for a reason of its own waits alone. On TRON with
// the stake as the energy source (ADR 0035) a USDT withdrawal first borrows
// its energy for the treasury and goes once the loan is confirmed (or burns,
// after the operator's longest wait); the loan is taken back in the
// transaction that ends it. A transfer the
// token contract refuses in the node's dry run (a blocked destination, a
// paused token) is never sent: the withdrawal fails at once, its lock released.
import { inject, injectable } from 'tsyringe';
import { servicePath } from '../../domain/custody/derivation.js';
import { consumeLock, refundFailedWithdrawal, releaseLock } from '../../domain/ledger/entries.js';
import { Amount } from '../../domain/money/amount.js';
import { baseChainOf, sideOf } from '../../domain/money/networks.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import { requestTransfer, type OutgoingTransfer } from '../../domain/transfers/outgoing-transfer.js';
import { aloneOnError, type ItemError } from '../../domain/chains/chain-port.js';
import type { ReconciliationStore } from '../../domain/ledger/reconciliation.js';
import type { ChainSender } from '../../domain/transfers/ports.js';
import {
  confirmedWithdrawal,
  confirming,
  failedWithdrawal,
  pickedUp,
  processing,
  unconfirming,
  type Withdrawal,
} from '../../domain/withdrawals/withdrawal.js';
import { InternalAddresses } from '../custody/internal-addresses.js';
import { LendEnergy, type EnergyFallback } from '../energy/lend-energy.js';
import { TOKENS } from '../tokens.js';
import { TransferOutcomes } from '../transfers/process-transfers.js';
import { GAS, senderFunds } from '../transfers/sender-funds.js';
import { withdrawalConfirmedData, withdrawalEventData } from './withdrawal-view.js';

export interface WithdrawalStepReport {
  pickedUp: number;
  /** Withdrawals failed because the token contract refuses their transfer. */
  refused: number;
  /** Withdrawals that could not be picked up this step for a reason of their own (tried again next step). */
  errors: ItemError[];
  /** The treasury could not pay a withdrawal: what it holds and what the withdrawal needs (chain units of the asset, and of gas). */
  treasuryShort: { address: string; asset: string; available: bigint; needed: bigint } | null;
  /** The network's payouts are held after a difference with the chain: nothing was picked up. */
  held: boolean;
  /** Why, when held (the reconciliation's reason). */
  heldReason?: string;
  /** TRON with the stake as the energy source: withdrawals waiting for their loan, and those that burn instead (said once each). */
  energyWaiting: number;
  energyFallbacks: EnergyFallback[];
}

@injectable()
export class SendWithdrawals {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(InternalAddresses) private readonly service: InternalAddresses,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TransferOutcomes) outcomes: TransferOutcomes,
    @inject(TOKENS.ReconciliationStore) private readonly reconciliation: ReconciliationStore,
    @inject(LendEnergy) private readonly energy: LendEnergy,
  ) {
    outcomes.on(['WITHDRAWAL'], (tx, t) => this.onTransferFinal(tx, t));
  }

  async step(sender: ChainSender, opts: { batch: number }): Promise<WithdrawalStepReport> {
    const report: WithdrawalStepReport = { pickedUp: 0, refused: 0, errors: [], treasuryShort: null, held: false, energyWaiting: 0, energyFallbacks: [] };
    const network = sender.network;
    // Broadcast and inclusion of the ones on their way (their end comes through the pipeline's outcomes).
    const moving = await this.uow.read((tx) => tx.withdrawals.behindTheirTransferIds(network, opts.batch));
    for (const id of moving) await this.uow.run((tx) => this.follow(tx, id));
    // A difference between the books and the chain holds new payouts of the network until an operator looks
    // (ReconcileChain; ops payouts resume). Those on their way go on.
    if (await this.reconciliation.isHeld(network)) {
      report.held = true;
      report.heldReason = (await this.reconciliation.holds()).find((h) => h.network === network)?.reason;
      return report;
    }
    const ready = await this.uow.read((tx) => tx.withdrawals.readyIds(network, opts.batch));
    // What the treasury is short of: later withdrawals of that asset wait behind the first, in order; a
    // treasury short of gas holds them all. Withdrawals of other assets go on.
    const short = new Set<string>();
    for (const id of ready) {
      if (short.has(GAS)) break;
      const lacking = await aloneOnError('withdrawal', id, report.errors, () => this.uow.run((tx) => this.pickUp(tx, id, sender, report, short)));
      if (lacking) short.add(lacking);
    }
    return report;
  }

  /**
   * Requests the transfer of one PENDING withdrawal. Returns what the treasury lacks to pay it now (its
   * asset, or GAS), or null.
   */
  private async pickUp(tx: TxContext, id: string, sender: ChainSender, report: WithdrawalStepReport, short: ReadonlySet<string>): Promise<string | null> {
    const w = await tx.withdrawals.lock(id);
    if (!w || w.status !== 'PENDING' || w.transferId !== null) return null; // cancelled, held, or taken meanwhile
    if (short.has(w.asset)) return null; // waits behind an earlier one of its asset
    if ((await tx.workspaces.get(w.workspaceId))?.withdrawalsFrozen) return null;
    const network = w.network;
    const from = await this.service.treasury(network);
    const amount = Amount.ofUnits(w.asset, w.netAmount).toChainUnits();
    const funds = await senderFunds(tx, sender, { asset: w.asset, from, to: w.destination, amount });
    if (funds.kind === 'refused') {
      await this.fail(tx, w, funds.reason);
      report.refused++;
      return null;
    }
    if (funds.kind === 'short') {
      report.treasuryShort ??= { address: from, asset: funds.asset, available: funds.available, needed: funds.needed };
      return funds.lacking;
    }
    // TRON with the stake as the source: the treasury borrows the transfer's energy first (ADR 0035).
    const energy = await this.energy.forPayout(tx, sender, { purpose: 'WITHDRAWAL', purposeId: w.id, network, receiver: from }, funds.burn);
    if (energy.fallback) report.energyFallbacks.push({ purpose: 'WITHDRAWAL', id: w.id, reason: energy.fallback });
    if (energy.wait) {
      report.energyWaiting++;
      return null;
    }
    const transfer = requestTransfer({
      id: this.random.uuid(),
      kind: 'WITHDRAWAL',
      network,
      asset: w.asset,
      from,
      fromPath: servicePath(network, 'treasury'),
      to: w.destination,
      amount,
      ownerId: w.id,
      requestedAt: this.clock.now(),
      gasLimit: funds.gasLimit,
      feeCap: funds.feeCap,
    });
    await tx.transfers.add(transfer);
    if (energy.loan) await this.energy.used(tx, energy.loan, transfer.id);
    await tx.withdrawals.save(pickedUp(w, transfer.id, this.clock.now()));
    report.pickedUp++;
    return null;
  }

  /** Moves one withdrawal on its way to what its transfer shows: broadcast, in a block, or out of it again. */
  private async follow(tx: TxContext, id: string): Promise<void> {
    const w = await tx.withdrawals.lock(id);
    if (!w?.transferId) return;
    const t = await tx.transfers.get(w.transferId);
    if (!t || t.status === 'REQUESTED' || t.status === 'SIGNED' || t.status === 'CONFIRMED' || t.status === 'FAILED') return;
    let next = w.status === 'PENDING' ? await this.markProcessing(tx, w, t) : w;
    if (t.status === 'CONFIRMING' && t.included && next.status === 'PROCESSING') next = confirming(next, t.included.txid, this.clock.now());
    else if (t.status === 'BROADCAST' && next.status === 'CONFIRMING') next = unconfirming(next, this.clock.now());
    if (next !== w) await tx.withdrawals.save(next);
  }

  /** Broadcast: the lock is consumed (net out of custody, fee to revenue) and WITHDRAWAL_PROCESSING published. */
  private async markProcessing(tx: TxContext, w: Withdrawal, t: OutgoingTransfer): Promise<Withdrawal> {
    const now = this.clock.now();
    const txid = t.included?.txid ?? t.attempts[t.attempts.length - 1]?.txid ?? '';
    const next = processing(w, txid, now);
    await tx.ledger.post(
      consumeLock({
        id: this.random.uuid(),
        network: w.network,
        at: now,
        withdrawalId: w.id,
        workspaceId: w.workspaceId,
        amount: Amount.ofUnits(w.asset, w.amount),
        fee: Amount.ofUnits(w.asset, w.fee),
      }),
    );
    await tx.events.publish({ workspaceId: w.workspaceId, side: sideOf(w.network), event: 'WITHDRAWAL_PROCESSING', data: withdrawalEventData(next) });
    return next;
  }

  /** A withdrawal that ends FAILED: its lock released (never broadcast) or its amount refunded whole (broadcast). */
  private async fail(tx: TxContext, w: Withdrawal, reason: string): Promise<void> {
    const now = this.clock.now();
    const amount = Amount.ofUnits(w.asset, w.amount);
    const entry =
      w.status === 'PENDING'
        ? releaseLock({ id: this.random.uuid(), network: w.network, at: now, withdrawalId: w.id, workspaceId: w.workspaceId, amount })
        : refundFailedWithdrawal({ id: this.random.uuid(), network: w.network, at: now, withdrawalId: w.id, workspaceId: w.workspaceId, amount, fee: Amount.ofUnits(w.asset, w.fee) });
    await tx.ledger.post(entry);
    const failed = failedWithdrawal(w, reason, now);
    await tx.withdrawals.save(failed);
    await tx.events.publish({ workspaceId: w.workspaceId, side: sideOf(w.network), event: 'WITHDRAWAL_FAILED', data: withdrawalEventData(failed) });
  }

  /** Inside the transaction that ends the withdrawal's transfer. */
  private async onTransferFinal(tx: TxContext, t: OutgoingTransfer): Promise<void> {
    const w = await tx.withdrawals.byTransfer(t.id);
    if (!w || w.status === 'CONFIRMED' || w.status === 'FAILED' || w.status === 'CANCELLED') return;
    // Energy lent for it goes back in this transaction.
    if (baseChainOf(w.network) === 'TRON') await this.energy.purposeDone(tx, 'WITHDRAWAL', w.id);
    const now = this.clock.now();
    const side = sideOf(w.network);
    if (t.status === 'CONFIRMED') {
      const sent = w.status === 'PENDING' ? await this.markProcessing(tx, w, t) : w;
      const done = confirmedWithdrawal(sent, t.included?.txid ?? sent.txid ?? '', now);
      await tx.withdrawals.save(done);
      await tx.events.publish({ workspaceId: w.workspaceId, side, event: 'WITHDRAWAL_CONFIRMED', data: withdrawalConfirmedData(done) });
      return;
    }
    // Failed: never broadcast, the lock is released; broadcast, the consumed amount comes back whole.
    await this.fail(tx, w, t.failure ?? 'the transaction failed');
  }
}
