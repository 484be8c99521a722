// The chain-worker's deposit scanners: one loop per network with a node,
// each calling ScanNetwork.step (src/application/deposits/scan-network.ts).
// A loop reads again at once while it is behind the head, polls every
// `pollMs` when caught up, waits for the lease when another chain-worker holds
// it, and backs off (doubling up to 30 s) while the node fails: its cursor
// stays where it was, so it catches up later without skipping a block. While
// the node's backends do not serve the newest blocks (node_behind), the loop
// stops further below the head (doubling up to MAX_TRAIL_BLOCKS, one block
// less after every TRAIL_EASE_STEPS steps that advance): a pool that always
// lags slows the scanner down instead of failing every step at the same range.
import type { Logger } from 'pino';
import { WakeableSleep } from './wakeable-sleep.js';
import { ChainUnavailableError, type ChainPort } from '../../domain/chains/chain-port.js';
import type { ScanNetwork, ScanOptions, ScanOutcome } from '../../application/deposits/scan-network.js';
import type { Network } from '../../domain/money/networks.js';
import type { ScannerMetrics } from '../metrics/metrics.js';

export interface ScannerLoopOptions extends Omit<ScanOptions, 'startBlock'> {
  /** Where each network's very first scan starts (the head when not set). */
  startBlocks: Partial<Record<Network, bigint>>;
  pollMs: number;
  /** Most time between two attempts while the node fails. */
  maxBackoffMs: number;
}

/** The furthest below the head a lagging pool makes the scanner stop. */
export const MAX_TRAIL_BLOCKS = 32;

/** Steps that advance before the trail is eased by one block. */
export const TRAIL_EASE_STEPS = 16;

/** The trail and the steps counted towards easing it, after a step's outcome. */
export function nextTrail(t: { blocks: number; eased: number }, outcome: 'node_behind' | 'advanced' | 'other'): { blocks: number; eased: number } {
  if (outcome === 'node_behind') return { blocks: Math.min(MAX_TRAIL_BLOCKS, Math.max(1, t.blocks * 2)), eased: 0 };
  if (outcome !== 'advanced' || t.blocks === 0) return t;
  return t.eased + 1 >= TRAIL_EASE_STEPS ? { blocks: t.blocks - 1, eased: 0 } : { blocks: t.blocks, eased: t.eased + 1 };
}

export class ScannerLoop {
  private running = false;
  private readonly pause = new WakeableSleep();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly scan: ScanNetwork,
    private readonly ports: ChainPort[],
    private readonly opts: ScannerLoopOptions,
    private readonly logger: Logger,
    private readonly metrics: ScannerMetrics,
    private readonly release: (port: ChainPort) => Promise<void>,
  ) {}

  start(): void {
    this.running = true;
    this.loops = this.ports.map((p) => this.loop(p));
  }

  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.pause.wakeAll();
    await Promise.race([Promise.all(this.loops), new Promise((r) => setTimeout(r, graceMs))]);
    await Promise.all(this.ports.map((p) => this.release(p).catch(() => undefined)));
  }

  private sleep(ms: number): Promise<void> {
    return this.pause.sleep(ms);
  }


  private async loop(port: ChainPort): Promise<void> {
    const network = port.network;
    const log = this.logger.child({ network });
    let failures = 0;
    let trail = { blocks: 0, eased: 0 };
    while (this.running) {
      let outcome: ScanOutcome;
      const started = performance.now();
      try {
        outcome = await this.scan.step(port, { ...this.opts, startBlock: this.opts.startBlocks[network], trailBlocks: trail.blocks });
        if (failures > 0) log.info({ failures, trailBlocks: trail.blocks }, 'the node answers again; scanning resumes from the cursor');
        failures = 0;
        trail = nextTrail(trail, outcome.kind === 'advanced' ? 'advanced' : 'other');
      } catch (err) {
        failures++;
        const kind = err instanceof ChainUnavailableError ? err.kind : 'other';
        if (kind === 'node_behind') trail = nextTrail(trail, 'node_behind');
        this.metrics.nodeErrors.inc({ network, kind });
        const delay = Math.min(this.opts.maxBackoffMs, this.opts.pollMs * 2 ** Math.min(failures, 10));
        log.warn({ err, kind, failures, retryInMs: delay }, 'scan step failed; keeping the cursor and backing off');
        await this.sleep(delay);
        continue;
      }
      this.observe(network, outcome, performance.now() - started, log);
      if (outcome.kind === 'advanced' && outcome.next <= outcome.head) continue; // behind: read on at once
      if (outcome.kind === 'retry' || outcome.kind === 'reorg') continue;
      await this.sleep(outcome.kind === 'not-leader' ? this.opts.leaseSeconds * 250 : this.opts.pollMs);
    }
  }

  private observe(network: string, o: ScanOutcome, ms: number, log: Logger): void {
    if (o.kind === 'advanced' || o.kind === 'idle') {
      const lag = o.head + 1n - o.next;
      this.metrics.head.set({ network }, Number(o.head));
      this.metrics.cursor.set({ network }, Number(o.next));
      this.metrics.lag.set({ network }, Number(lag > 0n ? lag : 0n));
    }
    if (o.kind === 'advanced') {
      this.metrics.stepSeconds.observe({ network }, ms / 1000);
      if (o.detected) this.metrics.detected.inc({ network }, o.detected);
      if (o.detected || o.credited || o.flagged) {
        log.info({ next: o.next.toString(), head: o.head.toString(), detected: o.detected, credited: o.credited, flagged: o.flagged }, 'deposits');
      }
      if (o.unexpected) {
        log.warn(
          { next: o.next.toString(), unexpected: o.unexpected },
          'money arrived at deposit addresses in another asset than their wallets\': recorded apart, not credited (ops deposit unexpected list)',
        );
      }
      if (o.unagreed) log.warn({ next: o.next.toString(), unagreed: o.unagreed }, 'deposits at their threshold wait: the node URLs do not agree on their transfers yet (one may be behind, or making them up)');
      if (o.reversed) log.warn({ next: o.next.toString(), reversed: o.reversed }, 'credits reversed: the rescan after a reorg read past their blocks without their transfers');
    } else if (o.kind === 'reorg') {
      this.metrics.reorgs.inc({ network });
      log.warn({ ancestor: o.ancestor.toString(), failed: o.failed, kept: o.kept, unproven: o.unproven, unexpectedForgotten: o.forgotten }, 'reorg: back to the common ancestor');
    } else if (o.kind === 'retry') {
      log.debug({ reason: o.reason }, 'scan step retried');
    }
  }
}
