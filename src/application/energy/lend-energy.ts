// Energy lent for one TRON transfer (ADR 0035): with the network's source
// set to `stake` (an EnergySource, src/domain/energy/energy-source.ts: the
// stake is StakeEnergySource), the energy account delegates the transfer's
// energy (the node's estimate × the margin) to the address that sends, the
// transfer goes
// once the delegation is confirmed, and the stake is taken back as soon as
// the transfer is final, in the transaction that ends it. The loan and the
// delegation transfer are recorded together; so are the end of what used the
// energy and the take-back: a chain-worker killed at any point leaves work
// the next one finishes, and nothing stays lent to a deposit address.
// When the stake cannot lend enough, or a loan has not landed within the
// operator's longest wait, the transfer burns TRX as before: said once per
// transfer, counted by reason.
import { inject, injectable } from 'tsyringe';
import { cancelled, delegated, reclaimed, reclaimFailed, reclaiming, usedBy, type DelegationPurpose, type EnergyDelegation } from '../../domain/energy/delegation.js';
import { defaultEnergyPolicy, waitedTooLong, type BurnReason, type EnergyPolicy } from '../../domain/energy/energy-plan.js';
import type { EnergySource } from '../../domain/energy/energy-source.js';
import { isEnergyChain, type EnergyChain } from '../../domain/energy/resources.js';
import type { Network } from '../../domain/money/networks.js';
import type { Clock, RandomSource, TxContext } from '../../domain/ports.js';
import type { OutgoingTransfer } from '../../domain/transfers/outgoing-transfer.js';
import type { ChainSender, TronBurn } from '../../domain/transfers/ports.js';
import { TOKENS } from '../tokens.js';
import { TransferOutcomes } from '../transfers/process-transfers.js';
import { TAKE_BACK_SLOW_MS } from './manage-energy.js';
import { StakeEnergySource } from './stake-energy-source.js';

/** Loans a sweep or payout may borrow and send nothing on before it burns instead. */
const MAX_UNUSED_LOANS = 2;
/** Blocks between the two reads that must both show a loan's stake back before it is closed without a take-back. */
const SHOWN_BACK_BLOCKS = 20n;

/** What a transfer that needs energy does now. */
export type EnergyReadiness =
  /** Burn TRX for it (the source is burn, the stake is short, or the loan took too long). */
  | { kind: 'burn'; reason: BurnReason; first: boolean }
  /** Lent energy is on the address: send, with a fee_limit that still covers burning what the estimate missed. */
  | { kind: 'lent'; loan: EnergyDelegation }
  /** A loan is on its way (just asked, or not confirmed yet): wait. */
  | { kind: 'waiting' }
  /** The address was never activated: energy cannot be lent to it yet (the gas tank's TRX activates it). */
  | { kind: 'activate' };

/** What a payout from a service address does about its energy now (see LendEnergy.forPayout). */
export interface PayoutEnergy {
  /** A loan is on its way: the payout waits (within the operator's longest wait). */
  wait: boolean;
  /** The loan it goes on (mark it used with the transfer), or null when it burns. */
  loan: EnergyDelegation | null;
  /** Why it burns though the source is the stake, said the first time only. */
  fallback: BurnReason | null;
}

/** A payout that burns, said by the chain-worker once per payout. */
export interface EnergyFallback {
  purpose: DelegationPurpose;
  id: string;
  reason: BurnReason;
}

/** What the chain-worker shows of a network's lending each step (metrics). */
export interface EnergyGauges {
  /** Energy the energy account can still use or lend now. */
  available: bigint;
  /** Loans not taken back yet, and those whose take-back failed at least once. */
  open: number;
  failing: number;
}

export interface EnergyNeed {
  purpose: DelegationPurpose;
  purposeId: string;
  network: Network;
  /** The address that sends and so needs the energy. */
  receiver: string;
  /** The node's estimate of the transfer's energy, and what burning it would cost (sun). */
  estimate: bigint;
  burnEquivalent: bigint;
}

@injectable()
export class LendEnergy {
  /** Loans whose failed take-back every node showed back: the head then (shownBack asks it again later). */
  private readonly seenBack = new Map<string, bigint>();
  /** The sources an operator may pick besides burning (ADR 0035): the stake today. */
  private readonly sources: Record<EnergySource['kind'], EnergySource>;

  constructor(
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TransferOutcomes) outcomes: TransferOutcomes,
    @inject(StakeEnergySource) stake: StakeEnergySource,
  ) {
    this.sources = { stake };
    outcomes.on(['ENERGY_DELEGATE', 'ENERGY_RECLAIM'], (tx, t) => this.onTransferFinal(tx, t));
  }

  /** The account that lends on `network` with the stake source. */
  energyAccount(network: Network): Promise<string> {
    return this.sources.stake.lender(network);
  }

  private sourceOf(_loan: Pick<EnergyDelegation, 'network'>): EnergySource {
    // Every loan so far is the stake's; a second source would record its kind on the loan.
    return this.sources.stake;
  }

  async policy(tx: TxContext, network: Network): Promise<EnergyPolicy> {
    return (await tx.energy.policies()).find((p) => p.network === network) ?? defaultEnergyPolicy(network);
  }

  /** Where the energy of the transfer `need` describes comes from, now; asks for a loan when one is due. */
  async prepare(tx: TxContext, need: EnergyNeed, chain: EnergyChain): Promise<EnergyReadiness> {
    const policy = await this.policy(tx, need.network);
    // Once it fell back it burns to the end: its gas tank top-up already paid for burning, and it was counted so.
    // A loan that lands after that is taken back unused (when it ends, or by the tidy pass).
    const fellBack = await tx.energy.fallbackOf(need.purpose, need.purposeId);
    if (fellBack) return { kind: 'burn', reason: fellBack, first: false };
    const open = await tx.energy.openFor(need.purpose, need.purposeId);
    if (open?.status === 'DELEGATED') return { kind: 'lent', loan: open };
    if (open) {
      // Asked and not confirmed yet, or being taken back (the transfer burnt meanwhile): wait, within the policy.
      return open.status === 'DELEGATING' && !waitedTooLong(policy, open.createdAt, this.clock.now()) ? { kind: 'waiting' } : this.fallback(tx, need, 'waited_too_long');
    }
    if (policy.source === 'burn') return { kind: 'burn', reason: 'source_is_burn', first: false };
    // Loans it borrowed before and sent nothing on (it stalled, or its delegation was refused): borrowing without
    // end would spend the energy account's TRX on bytes; after two, it burns.
    if ((await tx.energy.unusedLoans(need.purpose, need.purposeId)) >= MAX_UNUSED_LOANS) return this.fallback(tx, need, 'waited_too_long');
    // One lender per network: two chain-workers would otherwise promise the same stake twice.
    await tx.energy.lockLender(need.network);
    const source = this.sources[policy.source];
    const [receiver, decision] = await Promise.all([chain.resources(need.receiver), source.offer(tx, need.network, need.estimate, policy, chain)]);
    if (decision.kind === 'burn') return this.fallback(tx, need, decision.reason); // decided first: a new address short of stake gets one top-up, not two
    if (!receiver) return { kind: 'activate' };
    const now = this.clock.now();
    const loan: EnergyDelegation = {
      id: this.random.uuid(),
      network: need.network,
      from: await source.lender(need.network),
      receiver: need.receiver,
      stake: decision.stake,
      energy: decision.energy,
      purpose: need.purpose,
      purposeId: need.purposeId,
      status: 'DELEGATING',
      delegateTransferId: this.random.uuid(),
      reclaimTransferId: null,
      reclaimFailures: 0,
      burnEquivalent: need.burnEquivalent,
      usedBy: null,
      createdAt: now,
      updatedAt: now,
    };
    // One open loan per purpose (a partial unique index): a second chain-worker's plan writes nothing.
    if (!(await tx.energy.add(loan))) return { kind: 'waiting' };
    await source.deliver(tx, loan);
    return { kind: 'waiting' };
  }

  /** The network's lending now; null while its source is burn and nothing is lent. */
  async gauges(tx: TxContext, network: Network, chain: EnergyChain): Promise<EnergyGauges | null> {
    const { open, failing } = await tx.energy.openCounts(network, new Date(this.clock.now().getTime() - TAKE_BACK_SLOW_MS));
    const { source } = await this.policy(tx, network);
    if (source === 'burn' && open === 0) return null;
    return { available: (await this.sources[source === 'burn' ? 'stake' : source].available(chain, network)) ?? 0n, open, failing };
  }

  /**
   * A token payout from a service address (the treasury's withdrawal, the faucet dispenser's drip) on a network
   * whose energy may be lent: whether it waits for a loan, the loan it goes on, or why it burns. Nothing to do on
   * EVM networks or for a TRX transfer (no energy).
   */
  async forPayout(
    tx: TxContext,
    sender: ChainSender,
    need: Pick<EnergyNeed, 'purpose' | 'purposeId' | 'network' | 'receiver'>,
    burn: TronBurn | null,
  ): Promise<PayoutEnergy> {
    if (!isEnergyChain(sender) || !burn?.energyUnits) return { wait: false, loan: null, fallback: null };
    const ready = await this.prepare(tx, { ...need, estimate: burn.energyUnits, burnEquivalent: burn.energy }, sender);
    if (ready.kind === 'waiting') return { wait: true, loan: null, fallback: null };
    if (ready.kind === 'lent') return { wait: false, loan: ready.loan, fallback: null };
    // A service address that was never activated holds no TRX to pay with: its funds check keeps it waiting.
    return { wait: false, loan: null, fallback: ready.kind === 'burn' && ready.first ? ready.reason : null };
  }

  /** The transfer `transferId` goes on the loan's energy, in the transaction that requests it. */
  async used(tx: TxContext, loan: EnergyDelegation, transferId: string): Promise<void> {
    await tx.energy.save(usedBy(loan, transferId, this.clock.now()));
  }

  /** A transfer that burns though the source is the stake: recorded once (ops energy status), said once by the caller. */
  private async fallback(tx: TxContext, need: EnergyNeed, reason: BurnReason): Promise<EnergyReadiness> {
    const first = await tx.energy.recordFallback(need.network, need.purpose, need.purposeId, reason, this.clock.now());
    return { kind: 'burn', reason, first };
  }

  /**
   * Whether what a loan served is over, read without a lock: the transfer that went on it is final, or its sweep
   * or payout ended (or is gone). A loan confirmed after that is taken back at once.
   */
  private async servedOver(tx: TxContext, loan: EnergyDelegation): Promise<boolean> {
    if (loan.usedBy) {
      const status = (await tx.transfers.get(loan.usedBy))?.status;
      if (status === 'CONFIRMED' || status === 'FAILED') return true;
    }
    switch (loan.purpose) {
      case 'SWEEP': {
        const status = await tx.sweeps.statusOf(loan.purposeId);
        return status === null || status === 'SWEPT' || status === 'FAILED';
      }
      case 'WITHDRAWAL': {
        const status = await tx.withdrawals.statusOf(loan.purposeId);
        return status === null || status === 'CONFIRMED' || status === 'FAILED' || status === 'CANCELLED';
      }
      case 'FAUCET': {
        const status = await tx.faucet.statusOf(loan.purposeId);
        return status === null || status === 'COMPLETED' || status === 'FAILED';
      }
    }
  }

  /** Inside the transaction that ends what a loan served: its stake is asked back now (or once its delegation lands). */
  async purposeDone(tx: TxContext, purpose: DelegationPurpose, purposeId: string): Promise<void> {
    const loan = await tx.energy.openFor(purpose, purposeId);
    if (loan?.status === 'DELEGATED') await this.takeBack(tx, loan);
  }

  /**
   * Each step: loans still lent whose purpose ended without the stake being asked back then (its sweep ended while
   * another transaction held it, a chain-worker died in between) or that have sat unused three times the longest
   * wait (the sweep stalled for another reason: it borrows again when it is ready), asked back now; and take-backs
   * that failed, asked again while the chain shows the stake still lent, or closed when it shows it back. Returns
   * how many take-backs it asked for.
   */
  async tidy(tx: TxContext, network: Network, limit: number, chain: EnergyChain & Pick<ChainSender, 'head'>): Promise<number> {
    let asked = 0;
    const policy = await this.policy(tx, network);
    const now = this.clock.now();
    for (const listed of await tx.energy.list(network, ['DELEGATED', 'RECLAIMING'], limit * 4)) {
      if (asked >= limit) break;
      // Decided on the locked row: another chain-worker may have used it, or asked it back, meanwhile.
      const loan = await tx.energy.openFor(listed.purpose, listed.purposeId);
      if (loan?.id !== listed.id) continue;
      if (loan.status === 'DELEGATED') {
        const done = await this.servedOver(tx, loan);
        // A loan nothing went on (a sweep that stalled for another reason, a payout held): it borrows again when ready.
        const stale = now.getTime() - loan.updatedAt.getTime() > 3 * policy.maxWaitSeconds * 1000 && loan.usedBy === null;
        if (!done && !stale) continue;
      } else {
        const last = loan.reclaimTransferId ? await tx.transfers.get(loan.reclaimTransferId) : null;
        if (last?.status !== 'FAILED') continue;
        const back = await this.shownBack(loan, last, tx, chain);
        if (back === 'back') await tx.energy.save(reclaimed(loan, now));
        if (back !== 'lent') continue;
      }
      await this.takeBack(tx, loan);
      asked++;
    }
    return asked;
  }

  /**
   * Whether a loan whose take-back failed is back already (an earlier take-back landed after all). A verdict that
   * ends a loan: every node, each past the delegation's block and the failed take-back's, shows nothing lent, and
   * again at least SHOWN_BACK_BLOCKS later (a pooled URL may answer from a backend behind the delegation, which
   * shows nothing lent too): 'seen' between the two. When the nodes show it lent, or cannot say, the take-back is
   * asked again ('lent'; the node refuses it if nothing is lent after all).
   */
  private async shownBack(loan: EnergyDelegation, last: OutgoingTransfer, tx: TxContext, chain: EnergyChain & Pick<ChainSender, 'head'>): Promise<'back' | 'seen' | 'lent'> {
    const delegation = await tx.transfers.get(loan.delegateTransferId);
    if (!delegation?.included) return 'lent';
    const since = [delegation.included.blockNumber, last.included?.blockNumber].reduce<bigint>((m, b) => (b !== undefined && b > m ? b : m), 0n);
    const head = (await chain.head()).number;
    if ((await this.sourceOf(loan).lentOnEveryNode(chain, loan.from, loan.receiver, since)) !== 0n) {
      this.seenBack.delete(loan.id);
      return 'lent';
    }
    const first = this.seenBack.get(loan.id);
    if (first === undefined || head < first) {
      this.seenBack.set(loan.id, head);
      return 'seen';
    }
    if (head - first < SHOWN_BACK_BLOCKS) return 'seen';
    this.seenBack.delete(loan.id);
    return 'back';
  }

  private async takeBack(tx: TxContext, loan: EnergyDelegation): Promise<void> {
    const transferId = this.random.uuid();
    await this.sourceOf(loan).takeBack(tx, loan, transferId);
    await tx.energy.save(reclaiming(loan, transferId, this.clock.now()));
  }

  /** Inside the transaction that ends a delegation or take-back transfer. */
  private async onTransferFinal(tx: TxContext, t: OutgoingTransfer): Promise<void> {
    const loan = await tx.energy.byTransfer(t.id);
    if (!loan) return;
    const now = this.clock.now();
    if (t.kind === 'ENERGY_DELEGATE' && loan.status === 'DELEGATING') {
      if (t.status === 'FAILED') return tx.energy.save(cancelled(loan, now));
      const lent = delegated(loan, now);
      await tx.energy.save(lent);
      // What it served ended meanwhile (it burnt after waiting too long): the stake comes back at once.
      if (await this.servedOver(tx, lent)) await this.takeBack(tx, lent);
      return;
    }
    if (t.kind === 'ENERGY_RECLAIM' && loan.status === 'RECLAIMING' && loan.reclaimTransferId === t.id) {
      if (t.status === 'CONFIRMED') return tx.energy.save(reclaimed(loan, now));
      // A take-back that failed is asked again by the next tidy pass, once the chain says the stake is still lent.
      await tx.energy.save(reclaimFailed(loan, now));
    }
  }
}
