// The chain-worker's side of the outgoing-transfer pipeline (ADR 0025): for
// each open transfer of a network, one step of its lifecycle. Signing commits
// the nonce, the signed bytes and the txid BEFORE anything is broadcast; a
// broadcast only ever sends recorded bytes; inclusion, confirmation and
// failure are read from the node and written idempotently. When a transfer
// ends, its gas is booked as the service's cost and its owner (the sweep, the
// withdrawal) is told, in the same transaction.
import { inject, injectable } from 'tsyringe';
import { ChainUnavailableError, aloneOnError, type ItemError } from '../../domain/chains/chain-port.js';
import { spendGas } from '../../domain/ledger/entries.js';
import { baseChainOf, gasCurrencyOf } from '../../domain/money/networks.js';
import type { Clock, NetworkRegistry, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import type { SignerPort } from '../../domain/custody/ports.js';
import {
  allAttemptsExpired,
  broadcast,
  confirmed,
  failed,
  includedIn,
  isReplacementBump,
  latestLive,
  replacementRefused,
  replacementOffer,
  underFeeCap,
  isFinal,
  needsReplacement,
  nonceTakenByAnother,
  replaced,
  resigned,
  signed,
  STAKE_KINDS,
  stakeOperationOf,
  unincluded,
  type EvmFees,
  type OutgoingTransfer,
  type TransferAttempt,
  type TransferKind,
} from '../../domain/transfers/outgoing-transfer.js';
import { BroadcastRejected, TransferRefused, type ChainSender, type SignDigest, type UnsignedTransfer } from '../../domain/transfers/ports.js';
import { eachAtOnce } from '../each-at-once.js';
import { TOKENS } from '../tokens.js';
import { ChainVerdicts } from './chain-verdicts.js';
import { stepReads, type StepReads } from './step-reads.js';

/** Told, inside the transaction that makes a transfer final, that it is (CONFIRMED or FAILED). */
export type TransferOutcomeHandler = (tx: TxContext, transfer: OutgoingTransfer) => Promise<void>;

/** Who owns each kind of transfer: the use case that requested it registers here. */
@injectable()
export class TransferOutcomes {
  private readonly handlers = new Map<TransferKind, TransferOutcomeHandler>();
  on(kinds: readonly TransferKind[], handler: TransferOutcomeHandler): void {
    for (const k of kinds) this.handlers.set(k, handler);
  }
  async tell(tx: TxContext, t: OutgoingTransfer): Promise<void> {
    await this.handlers.get(t.kind)?.(tx, t);
  }
}

export interface TransferStepOptions {
  /** A transaction not mined this long after its latest attempt was signed is replaced at its nonce with higher fees (EVM). */
  replaceAfterMs: number;
  /** How often the latest attempt of a pending transfer is broadcast again (a node may have dropped it). */
  rebroadcastAfterMs: number;
  /** Most transfers looked at per step. */
  batch: number;
  /** Transfers advanced at once (1 when not set): each holds a database connection while it talks to the node. */
  concurrency?: number;
}

export interface TransferStepReport {
  signed: number;
  broadcast: number;
  replaced: number;
  /** TRON: transfers signed anew once every earlier attempt had expired unincluded. */
  resigned: number;
  confirmed: OutgoingTransfer[];
  failed: OutgoingTransfer[];
  /** Transfers that could not advance this step for a reason of their own (tried again next step). */
  errors: ItemError[];
}

@injectable()
export class ProcessTransfers {
  /** When each transfer's latest attempt was last broadcast by this process. */
  private readonly lastBroadcast = new Map<string, number>();
  /** Verdicts that move money, proved over several steps (issue 30). */
  private readonly verdicts = new ChainVerdicts();

  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Signer) private readonly signer: SignerPort,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(TransferOutcomes) private readonly outcomes: TransferOutcomes,
  ) {}

  /** One pass over the network's open transfers. */
  async step(sender: ChainSender, opts: TransferStepOptions): Promise<TransferStepReport> {
    const report: TransferStepReport = { signed: 0, broadcast: 0, replaced: 0, resigned: 0, confirmed: [], failed: [], errors: [] };
    const ids = await this.uow.read((tx) => tx.transfers.openIds(sender.network, opts.batch));
    if (ids.length === 0) return report;
    const required = (await this.networks.get(sender.network)).requiredConfirmations;
    const reads = stepReads(sender);
    // Several transfers at once, each in its own transaction on its own row: their reads of the node go out
    // together (the EVM adapter batches the calls of one tick), and one sender's nonces are still taken one
    // after another under its nonce row's lock, back to back.
    // TRON's one at a time: its stake operations build on what the node says of the account at the time.
    await eachAtOnce(ids, baseChainOf(sender.network) === 'TRON' ? 1 : (opts.concurrency ?? 1), (id) =>
      // A transfer the node answers oddly about (a build the adapter refuses to sign) waits alone.
      aloneOnError('transfer', id, report.errors, async () => {
        // Told as ended only once its transaction committed (a commit that failed ends nothing).
        const ended: OutgoingTransfer[] = [];
        const toBroadcast = await this.uow.run(async (tx) => {
          const t = await tx.transfers.lock(id);
          if (!t || isFinal(t)) return null; // another chain-worker has it, or it just ended
          return this.advance(tx, t, sender, opts, required, reads, report, ended);
        });
        for (const e of ended) (e.status === 'CONFIRMED' ? report.confirmed : report.failed).push(e);
        if (toBroadcast) await this.send(sender, toBroadcast, report);
      }),
    );
    return report;
  }

  /** One step of one transfer, in its transaction; returns the transfer when its latest attempt should go out now. */
  private async advance(
    tx: TxContext,
    t: OutgoingTransfer,
    sender: ChainSender,
    opts: TransferStepOptions,
    required: number,
    reads: StepReads,
    report: TransferStepReport,
    ended: OutgoingTransfer[],
  ): Promise<OutgoingTransfer | null> {
    const now = this.clock.now();
    const { fees, finality } = reads;
    if (t.status === 'REQUESTED') {
      let next: OutgoingTransfer;
      try {
        next = await this.sign(tx, t, sender, reads);
      } catch (err) {
        await this.refusedToBuild(tx, t, err, ended);
        return null;
      }
      report.signed++;
      return next;
    }
    // What the chain says of every attempt, as one backend answers it. The
    // mined nonce (EVM) is read first: a nonce that moved past ours with no
    // receipt found afterwards may not be ours. Likewise the time of the
    // irreversible block (TRON): an attempt expired by then that no receipt
    // shows afterwards may be dead. Either is only a suspicion until proved
    // (proveDead): a lagging backend answers a receipt null for a mined one.
    const mined = t.nonce === null ? null : await reads.minedNonce(t.from);
    const finalTime = t.nonce === null ? await finality() : null;
    const receipts = await Promise.all(t.attempts.map((a) => sender.sentReceipt(a.txid)));
    let receipt = receipts.find((r) => r !== null) ?? null;
    let dead = false;
    if (!receipt) {
      const suspect =
        (mined !== null && nonceTakenByAnother(t.status === 'CONFIRMING' ? unincluded(t) : t, mined, false)) ||
        (finalTime !== null && (t.status === 'BROADCAST' || t.status === 'SIGNED') && allAttemptsExpired(t, finalTime));
      if (suspect) {
        const proof = await this.verdicts.proveDead(t, sender, required);
        if (proof.kind === 'mined') receipt = proof.receipt;
        dead = proof.kind === 'dead';
      } else {
        this.verdicts.clear(t.id);
      }
    }
    let next = t;
    if (receipt) {
      this.verdicts.clear(t.id);
      const moved = !t.included || t.included.txid !== receipt.txid || t.included.blockNumber !== receipt.block.number;
      if (moved) next = includedIn(t.status === 'CONFIRMING' ? unincluded(t) : t, receipt.txid, receipt.block.number, receipt.feePaid, receipt.status === 'reverted');
      const head = (await reads.head()).number;
      const settled = confirmed(next, head, required, now);
      // A revert refunds the transfer: one backend's receipt is no proof of it (revertProved). Nor is one
      // URL's success proof of a payout: CONFIRMED only on the receipt the URLs agree on.
      if (settled.status === 'FAILED') {
        if (await this.verdicts.revertProved(t.id, receipt.txid, sender, head, required)) next = settled;
      } else if (settled.status === 'CONFIRMED') {
        const agreed = await sender.agreedReceipt(receipt.txid);
        if (agreed?.status === 'success' && agreed.block.number === receipt.block.number) next = settled;
      } else {
        next = settled;
      }
    } else {
      this.verdicts.clearRevert(t.id);
      if (t.status === 'CONFIRMING') next = unincluded(t); // its block was reorged out: the same bytes go out again
      if (dead && t.nonce !== null) next = failed(next, 'dropped: another transaction took its nonce');
    }
    if (next.status === 'CONFIRMED' || next.status === 'FAILED') {
      await tx.transfers.save(next);
      await this.settle(tx, next);
      ended.push(next);
      this.lastBroadcast.delete(next.id);
      return null;
    }
    if (dead && finalTime !== null && (next.status === 'BROADCAST' || next.status === 'SIGNED') && allAttemptsExpired(next, finalTime)) {
      // TRON: no nonce to keep, and nothing signed before can be included any more: a fresh transaction.
      let attempt: TransferAttempt;
      try {
        attempt = await this.attempt(next, sender, next.nonce, null);
      } catch (err) {
        await this.refusedToBuild(tx, next, err, ended);
        return null;
      }
      const again = resigned(next, attempt, finalTime);
      await tx.transfers.save(again);
      report.resigned++;
      return again;
    }
    // A transfer no node has taken is replaced only once this process tried to send it (after a restart, the
    // bytes it signed go out first).
    const tried = next.status === 'BROADCAST' || (next.status === 'SIGNED' && this.lastBroadcast.has(next.id));
    if (tried && needsReplacement(next, now, opts.replaceAfterMs)) {
      const replacement = await this.replace(next, sender, await fees());
      if (replacement) {
        await tx.transfers.save(replacement);
        report.replaced++;
        return replacement;
      }
    }
    if (next !== t) await tx.transfers.save(next);
    if (next.status === 'SIGNED') return next;
    const last = this.lastBroadcast.get(next.id) ?? 0;
    return next.status === 'BROADCAST' && Date.now() - last >= opts.rebroadcastAfterMs ? next : null;
  }

  /**
   * A Stake 2.0 transaction the node refuses to build (the stake, a delegation or the balance is not what it
   * assumed), at the first signing or at a new one after every earlier attempt was proved dead: nothing of it is
   * live, so it fails and what wanted it decides again, instead of being asked for ever. Anything else is thrown.
   */
  private async refusedToBuild(tx: TxContext, t: OutgoingTransfer, err: unknown, ended: OutgoingTransfer[]): Promise<void> {
    if (!(err instanceof TransferRefused) || !(STAKE_KINDS as readonly string[]).includes(t.kind)) throw err;
    const refused = failed(t, `refused by the node: ${err.message.slice(0, 400)}`);
    await tx.transfers.save(refused);
    await this.settle(tx, refused);
    ended.push(refused);
  }

  private signWithKeyOf(t: OutgoingTransfer): SignDigest {
    const chain = baseChainOf(t.network);
    return (digest) => this.signer.signDigest(chain, t.fromPath, digest);
  }

  /** The first signing: nonce taken under the sender's row lock, bytes recorded; committed before the broadcast. */
  private async sign(tx: TxContext, t: OutgoingTransfer, sender: ChainSender, reads: StepReads): Promise<OutgoingTransfer> {
    const quote = await reads.fees();
    const mined = await reads.minedNonce(t.from);
    const nonce = mined === null ? null : await tx.transfers.takeNonce(t.network, t.from, mined);
    const next = signed(t, await this.attempt(t, sender, nonce, quote && underFeeCap(quote, t.feeCap)), nonce);
    await tx.transfers.save(next);
    return next;
  }

  /**
   * EVM: the same transfer at the same nonce, paying at least 15 % more than any attempt so far (a refused one
   * included) but never more than twice what the network asks now unless the live attempt needs it
   * (replacementCeiling); null when its fee cap leaves less than the 10 % nodes require over the live attempt, or
   * when the bytes would be those of an earlier attempt: then the live attempt goes on being broadcast.
   */
  private async replace(t: OutgoingTransfer, sender: ChainSender, quote: EvmFees | null): Promise<OutgoingTransfer | null> {
    const previous = latestLive(t);
    const fees = quote && replacementOffer(t, quote);
    if (!previous?.fees || !fees || t.nonce === null) return null;
    // Nodes take a replacement only at +10 % on both fields: below that (the fee cap in the way) the transfer waits.
    if (!isReplacementBump(previous.fees, fees)) return null;
    const attempt = await this.attempt(t, sender, t.nonce, fees);
    if (t.attempts.some((a) => a.txid === attempt.txid)) return null;
    return replaced(t, attempt);
  }

  /** Builds and signs one attempt of the transfer (nothing is broadcast). */
  private async attempt(t: OutgoingTransfer, sender: ChainSender, nonce: bigint | null, fees: EvmFees | null): Promise<TransferAttempt> {
    const stake = stakeOperationOf(t);
    const unsigned: UnsignedTransfer = {
      asset: t.asset,
      from: t.from,
      to: t.to,
      amount: t.amount,
      nonce,
      gasLimit: t.gasLimit,
      fees,
      feeLimit: fees === null ? t.feeCap : null,
      ...(stake ? { stake } : {}),
    };
    const signedTx = await sender.sign(unsigned, this.signWithKeyOf(t));
    return { txid: signedTx.txid, raw: signedTx.raw, fees, expiresAt: signedTx.expiresAt, signedAt: this.clock.now() };
  }

  /** Broadcasts the latest attempt (recorded already); a node that has it says so, which is as good. */
  private async send(sender: ChainSender, t: OutgoingTransfer, report: TransferStepReport): Promise<void> {
    const attempt = latestLive(t);
    if (!attempt) return;
    this.lastBroadcast.set(t.id, Date.now());
    try {
      await sender.broadcast(attempt.raw);
    } catch (err) {
      // A replacement refused at its first broadcast is marked, and its transfer goes on with the attempts before it.
      const isReplacement = t.status === 'SIGNED' && t.attempts.length > 1 && attempt === t.attempts[t.attempts.length - 1];
      if (err instanceof BroadcastRejected && err.reason !== 'nonce_too_low' && isReplacement) {
        await this.uow.run(async (tx) => {
          const current = await tx.transfers.lock(t.id);
          if (current?.status === 'SIGNED' && latestLive(current)?.txid === attempt.txid) await tx.transfers.save(replacementRefused(current, attempt.txid, this.clock.now()));
        });
        report.errors.push({ kind: 'transfer', id: t.id, message: `its replacement ${attempt.txid} was refused (${err.message.slice(0, 200)}); the earlier attempt stays` });
        return;
      }
      // Refused or unreachable: the bytes stay recorded; the next step reads the chain and tries again.
      if (err instanceof BroadcastRejected || err instanceof ChainUnavailableError) return;
      throw err;
    }
    report.broadcast++;
    if (t.status !== 'SIGNED') return;
    await this.uow.run(async (tx) => {
      const current = await tx.transfers.lock(t.id);
      if (current?.status === 'SIGNED') await tx.transfers.save(broadcast(current, this.clock.now()));
    });
  }

  /** A final transfer: its gas booked as the service's cost, its owner told. */
  private async settle(tx: TxContext, t: OutgoingTransfer): Promise<void> {
    if (t.feePaid && t.feePaid > 0n) {
      // In the network's native currency (TRX included, booked in the ledger only): wei or sun.
      const gas = { asset: gasCurrencyOf(t.network), units: t.feePaid };
      await tx.ledger.post(spendGas({ id: this.random.uuid(), network: t.network, at: this.clock.now(), reference: `transfer:${t.id}`, gas }));
    }
    await this.outcomes.tell(tx, t);
  }
}
