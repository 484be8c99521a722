// One step of a network's deposit scanner (docs/api.md#deposits,
// ADR 0021). Holding the network's lease, it reads the next range of blocks
// up to the head (while catching up, the range after it is read during the
// step: read-ahead.ts), checks that they continue the blocks it stored (else
// a reorg: back to the common ancestor), records transfers to monitored
// addresses as DETECTED (and, apart, those of another asset than their
// wallet's: sort-transfers.ts), advances confirmations to the range's last block and
// credits the deposits that reached their threshold. Everything a step learns
// commits in one transaction with the cursor move, which is conditional on the
// lease and on the cursor it started from: a step is applied once or not at
// all, whatever another scanner or a crash does.
import { inject, injectable } from 'tsyringe';
import { agreedKey, ChainMovedError, ChainUnavailableError, commonAncestor, type BlockRef, type ChainPort, type ObservedTransfer } from '../../domain/chains/chain-port.js';
import { afterReorg, atHead, confirmationsAt, REORG_CHECKED_STATUSES, type Deposit } from '../../domain/deposits/deposit.js';
import type { MonitoredAddresses } from '../../domain/deposits/ports.js';
import { baseChainOf, type Network } from '../../domain/money/networks.js';
import type { Clock, NetworkRegistry, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import { InternalAddresses } from '../custody/internal-addresses.js';
import type { ServiceRole } from '../../domain/custody/derivation.js';
import { TOKENS } from '../tokens.js';
import { creditAll, flagAll, publishDetected, reverse } from './settle-deposit.js';
import { RangeReader } from './read-ahead.js';
import { sortTransfers } from './sort-transfers.js';

/**
 * The most transactions whose transfers the node URLs are asked to agree on in one step: a catch-up step's
 * transfers (100 blocks of a busy chain) all at once. The EVM adapter reads them by block (eth_getBlockReceipts),
 * or one receipt each where a URL does not serve that.
 */
const AGREEMENT_CHECKS_PER_STEP = 2000;

export interface ScanOptions {
  /** Who scans (one lease holder per network). */
  owner: string;
  leaseSeconds: number;
  /** Most blocks read in one step. */
  batchBlocks: number;
  /** Recent block hashes kept for reorg checks. */
  keepBlocks: number;
  /** Where the very first scan of a network starts; the head when not set. */
  startBlock?: bigint;
  /**
   * Blocks below the head the step stops at (0 when not set): the loop raises it while the node's
   * backends do not serve the newest blocks (node_behind), so a lagging pool slows the scanner, never stalls it.
   */
  trailBlocks?: number;
  /** The most transactions the node URLs are asked to agree on in one step (AGREEMENT_CHECKS_PER_STEP when not set). */
  agreementChecks?: number;
}

export type ScanOutcome =
  | { kind: 'not-leader' }
  | { kind: 'idle'; head: bigint; next: bigint }
  /** `unagreed`: deposits at their threshold that wait because the node URLs do not agree on their transfer yet. */
  /** `unexpected`: transfers of another asset than their wallet's, newly recorded apart (never credited on their own). */
  | { kind: 'advanced'; head: bigint; next: bigint; detected: number; unexpected: number; credited: number; flagged: number; reversed: number; unagreed: number }
  /** `unproven`: credited deposits whose transfer the node did not return, reversed only if the rescan does not find them. */
  | { kind: 'reorg'; head: bigint; ancestor: bigint; failed: number; kept: number; unproven: number; forgotten: number }
  /** The node answered inconsistently (the chain moved between two reads) or the cursor moved under us: try again. */
  | { kind: 'retry'; reason: string };

@injectable()
export class ScanNetwork {
  /** Per network, where the next step's agreement checks of due deposits start (round robin). */
  private readonly agreementOffset = new Map<Network, number>();
  /**
   * Per network and owner, the head an idle step found at the tip, with the cursor and the trail it had, until
   * a third of the lease it renewed has run (epoch ms). While the head is that block, the next step is idle again
   * without claiming: only the lease holder moves the cursor, and it still holds the lease.
   */
  private readonly quiet = new Map<string, { head: BlockRef; next: bigint; trail: bigint; until: number }>();
  private readonly reader: RangeReader;

  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(TOKENS.MonitoredAddresses) private readonly monitored: MonitoredAddresses,
    @inject(InternalAddresses) private readonly internal: InternalAddresses,
  ) {
    this.reader = new RangeReader(monitored);
  }

  async step(port: ChainPort, opts: ScanOptions): Promise<ScanOutcome> {
    const network = port.network;
    const key = `${network}:${opts.owner}`;
    const trail = BigInt(opts.trailBlocks ?? 0);
    const quiet = this.quiet.get(key);
    this.quiet.delete(key);
    // At the tip with nothing new, a step reads the head alone: no claim (a write at every poll) and no cursor read.
    let read: BlockRef | undefined;
    if (quiet && this.clock.now().getTime() < quiet.until && quiet.trail === trail) {
      read = await port.head();
      if (read.number === quiet.head.number && read.hash === quiet.head.hash) {
        this.quiet.set(key, quiet);
        return { kind: 'idle', head: read.number, next: quiet.next };
      }
    }
    const claimedAt = this.clock.now().getTime();
    const state = await this.uow.run((tx) => tx.scanState.claim(network, opts.owner, opts.leaseSeconds));
    if (!state) return { kind: 'not-leader' };
    const head = read ?? (await port.head());
    let next = state.nextBlock;
    if (next === null) {
      // The very first scan: where it starts is stored at once, so a step that fails after this head read
      // (a node error, a crash) resumes here instead of at a later head, past deposits made meanwhile.
      next = opts.startBlock ?? head.number;
      const start = next;
      if (!(await this.uow.run((tx) => tx.scanState.advance(network, opts.owner, null, start, [], opts.keepBlocks, opts.leaseSeconds)))) {
        return { kind: 'retry', reason: 'the lease or the cursor moved' };
      }
    }
    const storedBelow = state.recent.get(next - 1n);

    if (next > head.number + 1n) {
      // The node is behind what we read: a lagging node, or a chain that lost blocks.
      const ours = state.recent.get(head.number);
      if (ours === undefined || ours === head.hash) return { kind: 'idle', head: head.number, next };
      return this.reorg(port, opts, state.recent, head);
    }
    const readable = head.number - trail;
    const to = readable < next + BigInt(opts.batchBlocks) - 1n ? readable : next + BigInt(opts.batchBlocks) - 1n;
    if (to < next) {
      if (trail === 0n && storedBelow !== undefined && storedBelow !== head.hash) return this.reorg(port, opts, state.recent, head);
      this.quiet.set(key, { head, next, trail, until: claimedAt + (opts.leaseSeconds * 1000) / 3 });
      return { kind: 'idle', head: head.number, next };
    }

    try {
      const { blocks, transfers } = await this.reader.read(port, next, to);
      if (storedBelow !== undefined && blocks[0]!.parentHash !== storedBelow) return this.reorg(port, opts, state.recent, head);
      for (let i = 1; i < blocks.length; i++) {
        if (blocks[i]!.parentHash !== blocks[i - 1]!.hash) throw new ChainMovedError(`block ${blocks[i]!.number} does not follow ${blocks[i - 1]!.number}`);
      }
      const byNumber = new Map(blocks.map((b) => [b.number, b.hash]));
      for (const t of transfers) {
        if (byNumber.get(t.block.number) !== t.block.hash) throw new ChainMovedError(`transfer ${t.txid} is in another block ${t.block.number}`);
      }
      // Catching up: the next range is read while this step asks the URLs and writes (read-ahead.ts).
      if (to < readable) this.reader.readAhead(port, to + 1n, readable < to + BigInt(opts.batchBlocks) ? readable : to + BigInt(opts.batchBlocks));
      const agreed = await this.agreed(port, to, transfers, opts.agreementChecks ?? AGREEMENT_CHECKS_PER_STEP);
      const gone = await this.provedGone(port, to);
      const serviceRole = await this.internal.senderRoles(network);
      return await this.apply(network, opts, next, to, head.number, blocks, transfers, agreed, gone, serviceRole);
    } catch (err) {
      if (err instanceof ChainMovedError) return { kind: 'retry', reason: err.message };
      throw err;
    }
  }

  /**
   * The transfers of the deposits this step would credit (or flag) that the node URLs agree on
   * (ChainPort.agreedTransfers): one URL can make up a log, so a deposit is settled only on what they
   * all show. Null when the adapter has nothing to compare (every deposit at its threshold goes on).
   */
  private async agreed(port: ChainPort, tip: bigint, transfers: ObservedTransfer[], cap: number): Promise<Set<string> | null> {
    if (!port.agreedTransfers) return null;
    const network = port.network;
    const required = (await this.networks.get(network)).requiredConfirmations;
    const due = await this.uow.read((tx) => tx.deposits.reachingThreshold(network, tip));
    // At most AGREEMENT_CHECKS_PER_STEP transactions a step, oldest first: deposits one URL made up stay open
    // (never agreed) and must not make every step slower; the others wait a step.
    // The step's own transfers first, then the due deposits from where the last step stopped (round robin):
    // deposits the URLs never agree on (made up by one of them) must not keep the others from their turn.
    const fresh = transfers.filter((t) => confirmationsAt(t.block.number, tip) >= required).map((t) => t.txid);
    const waiting = [...new Set(due.map((d) => d.txid))];
    const from = waiting.length === 0 ? 0 : (this.agreementOffset.get(network) ?? 0) % waiting.length;
    const rotated = [...waiting.slice(from), ...waiting.slice(0, from)];
    const txids = [...new Set([...fresh, ...rotated])].slice(0, cap);
    this.agreementOffset.set(network, from + cap);
    if (txids.length === 0) return new Set();
    const blockOf = new Map([
      ...due.map((d) => [d.txid, { number: d.blockNumber, hash: d.blockHash }] as const),
      ...transfers.map((t) => [t.txid, { number: t.block.number, hash: t.block.hash }] as const),
    ]);
    return port.agreedTransfers(txids, (key) => this.monitored.has(network, key), blockOf);
  }

  /**
   * The credited deposits a reorg took whose transaction no URL has mined: those the rescan read past may be
   * reversed. One URL's fork (or its "no receipt") must not take a credit away; null when the adapter has
   * nothing to compare.
   */
  private async provedGone(port: ChainPort, tip: bigint): Promise<Set<string> | null> {
    if (!port.minedOnAnyNode) return null;
    const gone = new Set<string>();
    for (const d of await this.uow.read((tx) => tx.deposits.reorgedOutBy(port.network, tip))) {
      // A URL that cannot say is no proof: that reversal waits, the step (detection, other credits) goes on.
      if ((await port.minedOnAnyNode(d.txid).catch(() => true)) === false) gone.add(d.id);
    }
    return gone;
  }

  private async apply(
    network: Network,
    opts: ScanOptions,
    expectedNext: bigint,
    to: bigint,
    head: bigint,
    blocks: BlockRef[],
    transfers: ObservedTransfer[],
    agreed: Set<string> | null,
    gone: Set<string> | null,
    serviceRole: (address: string) => ServiceRole | null,
  ): Promise<ScanOutcome> {
    const now = this.clock.now();
    const required = (await this.networks.get(network)).requiredConfirmations;
    return this.uow.run(async (tx) => {
      if (!(await tx.scanState.advance(network, opts.owner, expectedNext, to + 1n, blocks, opts.keepBlocks, opts.leaseSeconds))) {
        throw new LeaseLost();
      }
      const sorted = await sortTransfers(tx, transfers, required, () => to, now, this.random, serviceRole);
      const recorded = await tx.deposits.record(sorted.deposits);
      await publishDetected(tx, recorded);
      const unexpected = await tx.unexpected.record(sorted.unexpected);
      // After the new deposits: a credited one the rescan found again is unmarked before the reversals.
      const progress = await this.progress(tx, network, to, now, agreed, gone);
      return { kind: 'advanced' as const, head, next: to + 1n, detected: recorded.length, unexpected, ...progress };
    }).catch((err: unknown) => {
      if (err instanceof LeaseLost) return { kind: 'retry' as const, reason: 'the lease or the cursor moved' };
      throw err;
    });
  }

  /**
   * Confirmations of the open deposits at `tip`, the last block read; credit (or flag) those at their
   * threshold; reverse the credits a reorg took whose transfer the rescan read past without finding.
   */
  private async progress(
    tx: TxContext,
    network: Network,
    tip: bigint,
    now: Date,
    agreed: Set<string> | null,
    gone: Set<string> | null,
  ): Promise<{ credited: number; flagged: number; reversed: number; unagreed: number }> {
    let reversed = 0;
    let unagreed = 0;
    for (const d of await tx.deposits.reorgedOutBy(network, tip)) {
      if (gone && !gone.has(d.id)) continue; // some URL has it mined: not proved gone, it stays credited (and marked)
      await reverse(tx, d, now, this.random);
      reversed++;
    }
    await tx.deposits.advanceConfirmations(network, tip, now);
    // Set-based: whatever their number, the step's due deposits are screened, credited and flagged in a few statements.
    const due: Deposit[] = [];
    for (const d of await tx.deposits.reachingThreshold(network, tip)) {
      const { next, credit: reached } = atHead(d, tip);
      if (!reached) continue;
      if (agreed && !agreed.has(agreedKey({ txid: d.txid, logIndex: d.logIndex, blockHash: d.blockHash, asset: d.asset, from: d.fromAddress, to: d.toAddress, amount: d.chainAmount }))) {
        unagreed++; // stays open: asked again next step
        continue;
      }
      due.push({ ...d, confirmations: next.confirmations });
    }
    const denied = await tx.screening.deniedAmong(
      baseChainOf(network),
      due.map((d) => d.fromAddress),
    );
    const flagged = (await flagAll(tx, due.filter((d) => denied.has(d.fromAddress)), now)).length;
    const credited = (await creditAll(tx, due.filter((d) => !denied.has(d.fromAddress)), now, this.random)).length;
    return { credited, flagged, reversed, unagreed };
  }

  /**
   * The stored chain and the node disagree: find the highest stored block the
   * node still has, re-check every deposit above it (kept when its transfer
   * is in the node's chain again; else an open one FAILED, reopened if the
   * rescan finds it, and a credited one marked for the rescan to prove), and move
   * the cursor back to just above the ancestor.
   */
  private async reorg(port: ChainPort, opts: ScanOptions, stored: Map<bigint, string>, head: BlockRef): Promise<ScanOutcome> {
    const network = port.network;
    const nodeHashes = new Map<bigint, string>();
    const heights = [...stored.keys()].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
    let ancestor: bigint | null = null;
    for (const h of heights) {
      if (h > head.number) continue;
      const b = await port.blockByNumber(h);
      // A block the node does not serve at a height it claims is a backend behind, not a fork: judging
      // deposits against its other answers would fail (and reverse) what is still on chain.
      if (!b) throw new ChainUnavailableError(network, 'node_behind', `block ${h} is not served while the head is ${head.number}: the reorg is judged later`);
      nodeHashes.set(h, b.hash);
      if (b.hash === stored.get(h)) {
        ancestor = commonAncestor(stored, nodeHashes);
        break;
      }
    }
    // Deeper than the stored window: go back to below the oldest stored block.
    if (ancestor === null) ancestor = (heights[heights.length - 1] ?? head.number) - 1n;

    const now = this.clock.now();
    const affected = await this.uow.read((tx) => tx.deposits.above(network, ancestor, REORG_CHECKED_STATUSES));
    const isOurs = (key: string) => this.monitored.has(network, key);
    const found = new Map<string, ObservedTransfer>();
    for (const txid of new Set(affected.map((d) => d.txid))) {
      for (const t of await port.transfersOf(txid, isOurs)) {
        if (t.block.number <= head.number) found.set(`${t.txid}:${t.logIndex ?? 'native'}`, t);
      }
    }
    let failed = 0;
    let kept = 0;
    const reorgedOut: string[] = [];
    const outcome = await this.uow
      .run(async (tx) => {
        if (!(await tx.scanState.rewind(network, opts.owner, ancestor + 1n))) throw new LeaseLost();
        for (const d of affected) {
          const t = found.get(`${d.txid}:${d.logIndex ?? 'native'}`);
          if (t) {
            kept++;
            // Re-included: the same deposit, in its new block (open ones count their confirmations again).
            const moved = afterReorg(d, t.block.number);
            await tx.deposits.update({ ...d, ...moved, blockNumber: t.block.number, blockHash: t.block.hash, updatedAt: now });
          } else if (d.status === 'CONFIRMED') {
            // One node's "no such transaction" is no proof that moves money (a backend behind answers the
            // same): the credit stands, marked, until the rescan from the ancestor finds the transfer again
            // (the mark is cleared) or reads past its crediting depth without it (reversed then, in progress()).
            reorgedOut.push(d.id);
          } else {
            await tx.deposits.update({ ...d, status: 'FAILED', updatedAt: now });
            failed++;
          }
        }
        await tx.deposits.markReorgedOut(reorgedOut, now);
        // Unexpected arrivals no transfer has moved yet are read again from the ancestor too: one whose transfer is
        // gone must not stay listed, nor be returned (that would send someone else's money).
        await tx.sweeps.failUnsentReturnsAbove(network, ancestor);
        const forgotten = await tx.unexpected.forgetAbove(network, ancestor);
        return { kind: 'reorg' as const, head: head.number, ancestor, failed, kept, unproven: reorgedOut.length, forgotten };
      })
      .catch((err: unknown) => {
        if (err instanceof LeaseLost) return { kind: 'retry' as const, reason: 'the lease moved during a reorg' };
        throw err;
      });
    return outcome;
  }
}

class LeaseLost extends Error {}
