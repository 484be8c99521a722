// The chain-worker's custody loop (issue 31, ADR 0032): every `intervalMs`
// one pass over the treasury policies. A cold address change waiting for its
// cooling-off is announced at once, in one warning line (once per change) and
// the metric treasury_cold_address_change_pending{network,asset}; one coming
// into force is said too.
import type { Logger } from 'pino';
import type { WatchTreasuryPolicies } from '../../application/custody/watch-treasury-policies.js';
import type { CustodyMetrics } from '../metrics/metrics.js';
import { WakeableSleep } from './wakeable-sleep.js';

export interface CustodyLoopOptions {
  intervalMs: number;
}

export class CustodyLoop {
  private running = false;
  private readonly pause = new WakeableSleep();
  private loop: Promise<void> | null = null;
  /** Pending changes already announced, as network|asset|requested_at. */
  private readonly announced = new Set<string>();

  constructor(
    private readonly watch: WatchTreasuryPolicies,
    private readonly opts: CustodyLoopOptions,
    private readonly logger: Logger,
    private readonly metrics: CustodyMetrics,
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.pause.wakeAll();
    await Promise.race([this.loop, new Promise((r) => setTimeout(r, graceMs))]);
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.pass();
      } catch (err) {
        this.logger.warn({ err }, 'custody: the treasury policies could not be read; trying again');
      }
      await this.pause.sleep(this.opts.intervalMs);
    }
  }

  /** One pass: what is pending is announced (once each) and counted; what came into force is said. */
  async pass(): Promise<void> {
    const watched = await this.watch.execute();
    const seen = new Set<string>();
    for (const w of watched) {
      const labels = { network: w.network, asset: w.asset };
      this.metrics.coldAddressChangePending.set(labels, w.pending ? 1 : 0);
      if (w.cameIntoForce) {
        this.logger.warn({ ...labels, coldAddress: w.cameIntoForce }, `custody: the cold address of ${w.network} ${w.asset} is now ${w.cameIntoForce} (its cooling-off ended)`);
      }
      if (!w.pending) continue;
      const key = `${w.network}|${w.asset}|${w.pending.requestedAt.toISOString()}|${w.pending.coldAddress}`;
      seen.add(key);
      if (this.announced.has(key)) continue;
      this.announced.add(key);
      this.logger.warn(
        { ...labels, coldAddress: w.pending.coldAddress, replaces: w.coldAddress, effectiveAt: w.pending.effectiveAt.toISOString() },
        `custody: SECURITY: the cold address of ${w.network} ${w.asset} is to change to ${w.pending.coldAddress} at ${w.pending.effectiveAt.toISOString()}; if no one you trust asked for this, cancel it now: ops treasury policy cancel --chain ${w.network} --asset ${w.asset}`,
      );
    }
    for (const key of this.announced) if (!seen.has(key)) this.announced.delete(key);
  }
}
