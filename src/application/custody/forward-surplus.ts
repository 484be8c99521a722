// The treasury's surplus to cold storage (issue 31, ADR 0032): per network
// and asset with a cold address in force, when the hot treasury holds more
// than its ceiling beyond what unsent withdrawals need, the surplus over the
// target float is sent to the cold address through the one outgoing-transfer
// pipeline (kind COLD_FORWARD), requested in the same transaction as its
// ledger entry (TREASURY → COLD_IN_TRANSIT), one at a time per network and
// asset (a unique index keeps it so). Confirmed, it is COLD; failed, it is
// back in the hot treasury. No workspace's balance changes. Its gas is the
// treasury's; a treasury short of it is topped up by the gas tank first, as
// deposit addresses are for sweeps.
import { inject, injectable } from 'tsyringe';
import { aloneOnError, type ItemError } from '../../domain/chains/chain-port.js';
import { refillToAsk, surplusToForward } from '../../domain/custody/cold-forward.js';
import { servicePath } from '../../domain/custody/derivation.js';
import { inForce, type TreasuryPolicy } from '../../domain/custody/treasury-policy.js';
import { coldForwardArrived, coldForwardReturned, forwardToCold } from '../../domain/ledger/entries.js';
import type { ReconciliationStore } from '../../domain/ledger/reconciliation.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSET_SPECS, gasCurrencyOf, type Asset, type Network } from '../../domain/money/networks.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import { requestTransfer, type OutgoingTransfer } from '../../domain/transfers/outgoing-transfer.js';
import type { ChainSender } from '../../domain/transfers/ports.js';
import { TOKENS } from '../tokens.js';
import { TransferOutcomes } from '../transfers/process-transfers.js';
import { GAS, senderFunds } from '../transfers/sender-funds.js';
import { withMargin } from '../../domain/transfers/sweep.js';
import { InternalAddresses } from './internal-addresses.js';

export interface ForwardReport {
  /** Forwards requested this step: asset, amount (API units) and the cold address. */
  forwarded: { asset: Asset; amount: bigint; to: string; transferId: string }[];
  /**
   * Per asset with a policy in force: what the hot treasury holds beyond its transfers on their way, what the
   * unsent withdrawals need, and the refill to ask of a person (0: none), API units.
   */
  hot: { asset: Asset; held: bigint; reserved: bigint; refill: bigint; targetFloat: bigint }[];
  /** A surplus the treasury cannot send now (short), that the token refuses, or held after a failed forward. */
  blocked: { asset: Asset; amount: bigint; kind: 'short' | 'refused' | 'failed'; why: string }[];
  /** The network's payouts are held after a difference with the chain: nothing is forwarded either. */
  held: boolean;
  errors: ItemError[];
}

@injectable()
export class ForwardSurplus {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(InternalAddresses) private readonly service: InternalAddresses,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TransferOutcomes) outcomes: TransferOutcomes,
    @inject(TOKENS.ReconciliationStore) private readonly reconciliation: ReconciliationStore,
  ) {
    outcomes.on(['COLD_FORWARD'], (tx, t) => this.onTransferFinal(tx, t));
  }

  async step(sender: ChainSender): Promise<ForwardReport> {
    const report: ForwardReport = { forwarded: [], hot: [], blocked: [], held: false, errors: [] };
    const network = sender.network;
    const now = this.clock.now();
    const policies = (await this.uow.run((tx) => tx.treasury.policies())).map((p) => inForce(p, now)).filter((p) => p.network === network && p.coldAddress !== null);
    if (policies.length === 0) return report;
    // A difference between the books and the chain holds the network's payouts; money to cold storage waits too.
    if (await this.reconciliation.isHeld(network)) {
      report.held = true;
      return report;
    }
    for (const policy of policies) {
      await aloneOnError('cold-forward', `${network}:${policy.asset}`, report.errors, () => this.uow.run((tx) => this.forwardOne(tx, sender, policy, report)));
    }
    return report;
  }

  private async forwardOne(tx: TxContext, sender: ChainSender, stored: TreasuryPolicy, report: ForwardReport): Promise<void> {
    const network = stored.network;
    const asset = stored.asset;
    // The policy's row lock: one chain-worker at a time decides for this network and asset.
    const locked = await tx.treasury.policyForUpdate(network, asset);
    const policy = locked ? inForce(locked, this.clock.now()) : null;
    if (!policy?.coldAddress) return;
    const last = await tx.transfers.latestOfKind(network, 'COLD_FORWARD', asset);
    if (last && last.status !== 'CONFIRMED' && last.status !== 'FAILED') return; // the last one is still on its way
    // A forward that failed (booked back) is not tried again by itself: whatever made it fail (a cold address that is a
    // contract refusing plain ETH, too little gas) would fail the next one too and burn gas each time. The operator
    // looks, and setting the policy again lets forwarding go on.
    if (last?.status === 'FAILED' && last.updatedAt.getTime() >= policy.updatedAt.getTime()) {
      report.blocked.push({
        asset,
        amount: 0n,
        kind: 'failed',
        why: `the last forward failed (${(last.failure ?? 'unknown').slice(0, 200)}); forwarding waits until the policy is set again: ops treasury policy set --chain ${network} --asset ${asset} …`,
      });
      return;
    }
    const treasury = await this.service.treasury(network);
    const onChain = ASSET_SPECS[asset].native ? await sender.nativeBalance(treasury) : await sender.tokenBalance(asset, treasury);
    const held = Amount.fromChainUnits(asset, onChain - (await tx.transfers.pendingAmount(network, treasury, asset))).units;
    const reserved = await tx.withdrawals.unsentNetTotal(network, asset);
    report.hot.push({ asset, held, reserved, refill: refillToAsk({ held, reserved }, policy), targetFloat: policy.targetFloat });
    // What the books hold in the hot treasury (an asset held is a debit: the account's balance is negative).
    const bookedHot = -(await tx.ledger.serviceBalance(network, asset, 'TREASURY'));
    const surplus = surplusToForward({ held, reserved, bookedHot }, policy);
    if (surplus <= 0n) return;
    const amount = Amount.ofUnits(asset, surplus);
    const call = { asset, from: treasury, to: policy.coldAddress, amount: amount.toChainUnits() };
    const funds = await senderFunds(tx, sender, call);
    if (funds.kind === 'refused') {
      report.blocked.push({ asset, amount: surplus, kind: 'refused', why: funds.reason });
      return;
    }
    if (funds.kind === 'short') {
      // Short of gas: the gas tank tops the treasury up, as it does deposit addresses for sweeps; the forward follows.
      const why = funds.lacking === GAS ? await this.topUp(tx, sender, treasury, funds.needed - funds.available) : null;
      report.blocked.push({ asset, amount: surplus, kind: 'short', why: why ?? `the treasury holds ${funds.available} of the ${funds.needed} ${funds.asset} (chain units) it needs to send it` });
      return;
    }
    const now = this.clock.now();
    const transfer = requestTransfer({
      id: this.random.uuid(),
      kind: 'COLD_FORWARD',
      network,
      ...call,
      fromPath: servicePath(network, 'treasury'),
      ownerId: null,
      requestedAt: now,
      gasLimit: funds.gasLimit,
      feeCap: funds.feeCap,
    });
    await tx.transfers.add(transfer);
    await tx.ledger.post(forwardToCold({ id: this.random.uuid(), network, at: now, transferId: transfer.id, amount }));
    report.forwarded.push({ asset, amount: surplus, to: policy.coldAddress, transferId: transfer.id });
  }

  /**
   * A gas top-up of the treasury from the gas tank for what a forward lacks (with the sweeps' margin), unless one
   * is on its way; what the forward waits for, or null when the gas tank cannot pay it either.
   */
  private async topUp(tx: TxContext, sender: ChainSender, treasury: string, lacking: bigint): Promise<string | null> {
    const network = sender.network;
    if (await tx.transfers.topUpOnItsWay(network, treasury)) return 'waiting for the gas tank\'s top-up of the treasury';
    const gasAsset = gasCurrencyOf(network);
    const tank = await this.service.serviceAddress(network, 'gasTank');
    const amount = withMargin(lacking);
    const call = { asset: gasAsset, from: tank, to: treasury, amount };
    const funds = await senderFunds(tx, sender, call);
    if (funds.kind !== 'ok') return null;
    await tx.transfers.add(
      requestTransfer({
        id: this.random.uuid(),
        kind: 'GAS_TOPUP',
        network,
        ...call,
        fromPath: servicePath(network, 'gasTank'),
        ownerId: null,
        requestedAt: this.clock.now(),
        gasLimit: funds.gasLimit,
        feeCap: funds.feeCap,
      }),
    );
    return `the treasury lacks the gas: the gas tank tops it up with ${amount} ${gasAsset} (chain units), then it goes`;
  }

  /** Inside the transaction that ends a forward: in cold storage, or back in the hot treasury. */
  private async onTransferFinal(tx: TxContext, t: OutgoingTransfer): Promise<void> {
    const asset = t.asset as Asset;
    const base = { id: this.random.uuid(), network: t.network as Network, at: this.clock.now(), transferId: t.id, amount: Amount.fromChainUnits(asset, t.amount) };
    if (t.status === 'CONFIRMED') await tx.ledger.post(coldForwardArrived(base));
    else if (t.status === 'FAILED') await tx.ledger.post(coldForwardReturned(base));
  }
}
