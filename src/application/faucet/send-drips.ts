// The chain-worker's side of the sandbox faucet (docs/adr/0029-sandbox-faucet.md):
// each QUEUED item of a drip becomes a FAUCET outgoing transfer from the
// network's faucet dispenser to the drip's wallet, requested in the same
// transaction that records it on the item. Then:
//   broadcast          → the item is SENT (the drip SENDING)
//   confirmed (final)  → CONFIRMED (the drip COMPLETED once all are)
//   failed (final)     → FAILED (the drip FAILED)
// The drip then arrives at the wallet as an ordinary deposit: detected,
// confirmed, credited and swept by the scanner, with its usual webhooks. A
// dispenser short of an asset or of gas leaves the items waiting (nothing
// fails; the chain-worker warns); a transfer the token contract refuses in the
// node's dry run fails its item at once. On TRON with the stake as the energy
// source (ADR 0035) a USDT item borrows its energy for the dispenser first,
// taken back in the transaction that ends it.
import { inject, injectable } from 'tsyringe';
import { aloneOnError, type ItemError } from '../../domain/chains/chain-port.js';
import { servicePath } from '../../domain/custody/derivation.js';
import { withItem, withItemFailed, type Drip } from '../../domain/faucet/faucet.js';
import { Amount } from '../../domain/money/amount.js';
import { baseChainOf, type Network } from '../../domain/money/networks.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import { requestTransfer, type OutgoingTransfer } from '../../domain/transfers/outgoing-transfer.js';
import type { ChainSender } from '../../domain/transfers/ports.js';
import { InternalAddresses } from '../custody/internal-addresses.js';
import { LendEnergy, type EnergyFallback } from '../energy/lend-energy.js';
import { TOKENS } from '../tokens.js';
import { TransferOutcomes } from '../transfers/process-transfers.js';
import { GAS, senderFunds } from '../transfers/sender-funds.js';

export interface DripStepReport {
  /** Items handed to the pipeline this step. */
  requested: number;
  /** Items failed because the token contract refuses their transfer. */
  refused: number;
  /** Drips that could not advance this step for a reason of their own (tried again next step). */
  errors: ItemError[];
  /** The dispenser could not pay an item: what it holds and what the item needs (chain units). */
  dispenserShort: { address: string; asset: string; available: bigint; needed: bigint } | null;
  /** TRON with the stake as the energy source: items waiting for their loan, and drips that burn instead (said once each). */
  energyWaiting: number;
  energyFallbacks: EnergyFallback[];
}

@injectable()
export class SendDrips {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(InternalAddresses) private readonly service: InternalAddresses,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TransferOutcomes) outcomes: TransferOutcomes,
    @inject(LendEnergy) private readonly energy: LendEnergy,
  ) {
    outcomes.on(['FAUCET'], (tx, t) => this.onTransferFinal(tx, t));
  }

  private async dispenser(network: Network): Promise<string> {
    return await this.service.serviceAddress(network, 'faucet');
  }

  async step(sender: ChainSender, opts: { batch: number }): Promise<DripStepReport> {
    const report: DripStepReport = { requested: 0, refused: 0, errors: [], dispenserShort: null, energyWaiting: 0, energyFallbacks: [] };
    const ids = await this.uow.read((tx) => tx.faucet.queuedIds(sender.network, opts.batch));
    // What the dispenser is short of: later items of that asset wait behind the first; short of gas, all wait.
    const short = new Set<string>();
    for (const id of ids) {
      if (short.has(GAS)) break;
      await aloneOnError('drip', id, report.errors, () => this.uow.run((tx) => this.advance(tx, id, sender, report, short)));
    }
    return report;
  }

  /** One drip: its items on their way are marked SENT once broadcast; its QUEUED items are handed to the pipeline. */
  private async advance(tx: TxContext, id: string, sender: ChainSender, report: DripStepReport, short: Set<string>): Promise<void> {
    const original = await tx.faucet.lock(id);
    if (!original || original.status === 'COMPLETED' || original.status === 'FAILED') return;
    let drip: Drip = original;
    const from = await this.dispenser(drip.network);
    for (const [seq, item] of original.items.entries()) {
      if (item.status !== 'QUEUED' || drip.status === 'FAILED') continue;
      const now = this.clock.now();
      if (item.transferId !== null) {
        const t = await tx.transfers.get(item.transferId);
        if (t && (t.status === 'BROADCAST' || t.status === 'CONFIRMING')) drip = withItem(drip, seq, { status: 'SENT' }, now);
        continue;
      }
      if (short.has(item.asset)) continue;
      const amount = Amount.ofUnits(item.asset, item.amount).toChainUnits();
      const funds = await senderFunds(tx, sender, { asset: item.asset, from, to: drip.address, amount });
      if (funds.kind === 'refused') {
        drip = withItemFailed(drip, seq, now);
        report.refused++;
        continue;
      }
      if (funds.kind === 'short') {
        report.dispenserShort ??= { address: from, asset: funds.asset, available: funds.available, needed: funds.needed };
        short.add(funds.lacking);
        if (funds.lacking === GAS) break;
        continue;
      }
      // TRON with the stake as the source: the dispenser borrows the token transfer's energy first (ADR 0035).
      const energy = await this.energy.forPayout(tx, sender, { purpose: 'FAUCET', purposeId: drip.id, network: drip.network, receiver: from }, funds.burn);
      if (energy.fallback) report.energyFallbacks.push({ purpose: 'FAUCET', id: drip.id, reason: energy.fallback });
      if (energy.wait) {
        report.energyWaiting++;
        continue;
      }
      const transfer = requestTransfer({
        id: this.random.uuid(),
        kind: 'FAUCET',
        network: drip.network,
        asset: item.asset,
        from,
        fromPath: servicePath(drip.network, 'faucet'),
        to: drip.address,
        amount,
        ownerId: drip.id,
        requestedAt: now,
        gasLimit: funds.gasLimit,
        feeCap: funds.feeCap,
      });
      await tx.transfers.add(transfer);
      if (energy.loan) await this.energy.used(tx, energy.loan, transfer.id);
      drip = withItem(drip, seq, { transferId: transfer.id }, now);
      report.requested++;
    }
    if (drip !== original) await tx.faucet.save(drip);
  }

  /** Inside the transaction that ends an item's transfer. */
  private async onTransferFinal(tx: TxContext, t: OutgoingTransfer): Promise<void> {
    const drip = await tx.faucet.byTransfer(t.id);
    const seq = drip?.items.findIndex((i) => i.transferId === t.id) ?? -1;
    if (!drip || seq < 0 || drip.items[seq]!.status === 'CONFIRMED' || drip.items[seq]!.status === 'FAILED') return;
    // Energy lent for it goes back in this transaction.
    if (baseChainOf(drip.network) === 'TRON') await this.energy.purposeDone(tx, 'FAUCET', drip.id);
    const now = this.clock.now();
    await tx.faucet.save(t.status === 'CONFIRMED' ? withItem(drip, seq, { status: 'CONFIRMED' }, now) : withItemFailed(drip, seq, now));
  }
}
