// The dispatcher's delivery loop (docs/adr/0019-webhook-dispatch.md).
//
// Work arrives two ways: the `webhook.deliver` job that the event's (or the
// redelivery's) transaction enqueued, polled often for a fast first attempt;
// and a tick that claims deliveries whose retry is due, or whose dispatcher
// died (its lease ran out). Either way the delivery is claimed first (a
// lease in the database), so two dispatchers never send one attempt.
//
// Isolation: at most `concurrency` attempts run at once in this process and
// at most `perEndpoint` of them for one endpoint; claimed deliveries wait in
// their endpoint's own queue, first attempts ahead of retries, so a slow or
// dead receiver only ever holds its own slots. Retries may take at most half
// of the process's capacity, so first attempts are never stuck behind them.
// Leases are renewed while deliveries wait or run, and given back on stop.
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { AttemptOutcome } from '../../application/webhooks/attempt-delivery.js';
import type { Clock } from '../../domain/ports.js';
import type { ClaimedDelivery, DeliveryClaims } from '../../domain/webhooks/ports.js';
import { parseJobPayload } from '../jobs/catalogue.js';

export interface DispatchSettings {
  concurrency: number;
  perEndpoint: number;
  tickMs: number;
  pollMs: number;
  leaseSeconds: number;
}

export interface DispatchObserver {
  attempted(outcome: AttemptOutcome, claimedToStartMs: number): void;
}

interface EndpointQueue {
  running: number;
  fresh: ClaimedDelivery[];
  retries: ClaimedDelivery[];
}

const DELIVER = 'webhook.deliver';
/** Most claimed deliveries one endpoint may have waiting in this process; more are given back. */
const QUEUE_PER_ENDPOINT_SLOTS = 20;

export class DispatchLoop {
  private readonly queues = new Map<string, EndpointQueue>();
  private readonly claimedAt = new Map<string, number>();
  private running = 0;
  private held = 0;
  private heldRetries = 0;
  private stopped = true;
  private timers: NodeJS.Timeout[] = [];
  private polling: Promise<void> | null = null;
  private ticking: Promise<void> | null = null;
  private readonly idle = new Set<() => void>();

  constructor(
    private readonly boss: PgBoss,
    private readonly claims: DeliveryClaims,
    private readonly attempt: (claimed: ClaimedDelivery, owner: string) => Promise<AttemptOutcome>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: DispatchSettings,
    readonly owner: string,
    private readonly observer?: DispatchObserver,
  ) {}

  start(): void {
    this.stopped = false;
    this.polling = this.pollLoop();
    this.timers.push(
      setInterval(() => void this.tick(), this.settings.tickMs),
      setInterval(() => {
        if (this.held > 0) this.claims.renew(this.owner).catch((err: unknown) => this.logger.error({ err }, 'could not renew delivery leases'));
      }, (this.settings.leaseSeconds * 1000) / 3),
    );
    void this.tick();
  }

  /** Claims what is due now (retries, and deliveries whose dispatcher died). Exposed for tests. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.ticking ??= this.claimDue().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  /** Stops taking work, lets attempts in flight finish (within `graceMs`) and gives the rest back. */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    this.timers = [];
    await Promise.all([this.polling, this.ticking]);
    const waiting = [...this.queues.values()].flatMap((q) => [...q.fresh.splice(0), ...q.retries.splice(0)]);
    await Promise.all(waiting.map((c) => this.giveBack(c)));
    if (this.running > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.idle.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Deliveries this process holds (running or waiting). */
  get load(): { running: number; held: number } {
    return { running: this.running, held: this.held };
  }

  private async pollLoop(): Promise<void> {
    while (!this.stopped) {
      const room = Math.min(100, this.settings.concurrency * 2 - this.held);
      let fetched = 0;
      if (room > 0) {
        try {
          fetched = await this.fetchFresh(room);
        } catch (err) {
          this.logger.error({ err }, 'could not fetch webhook deliveries');
        }
      }
      if (fetched === 0 && !this.stopped) await sleep(this.settings.pollMs);
    }
  }

  private async fetchFresh(room: number): Promise<number> {
    const jobs = await this.boss.fetch<{ deliveryId: string }>(DELIVER, { batchSize: room });
    if (jobs.length === 0) return 0;
    const ids = jobs.map((job) => parseJobPayload(DELIVER, job.data).deliveryId);
    const claimed = await this.claims.claimMany(ids, this.owner, this.clock.now());
    // The claim, not the job, now guards the delivery: a crash from here on leaves a lease that runs out.
    await this.boss.complete(DELIVER, jobs.map((j) => j.id));
    for (const c of claimed) this.enqueue(c);
    this.pump();
    return jobs.length;
  }

  private async claimDue(): Promise<void> {
    try {
      const limit = Math.floor(this.settings.concurrency / 2) - this.heldRetries;
      if (limit <= 0) return;
      const busy = [...this.queues].filter(([, q]) => q.running + q.fresh.length + q.retries.length >= this.settings.perEndpoint).map(([id]) => id);
      const claimed = await this.claims.claimDue(this.owner, this.clock.now(), limit, this.settings.perEndpoint, busy);
      for (const c of claimed) this.enqueue(c);
      this.pump();
    } catch (err) {
      this.logger.error({ err }, 'could not claim due webhook deliveries');
    }
  }

  private enqueue(c: ClaimedDelivery): void {
    const q = this.queueOf(c.delivery.endpointId);
    if (q.fresh.length + q.retries.length >= this.settings.perEndpoint * QUEUE_PER_ENDPOINT_SLOTS) {
      void this.giveBack(c);
      return;
    }
    this.held += 1;
    if (c.delivery.attempts === 0) q.fresh.push(c);
    else {
      q.retries.push(c);
      this.heldRetries += 1;
    }
    this.claimedAt.set(c.delivery.id, performance.now());
  }

  /** Starts waiting deliveries while there are free slots, one endpoint at a time, round robin. */
  private pump(): void {
    let progressed = true;
    while (progressed && this.running < this.settings.concurrency) {
      progressed = false;
      for (const [endpointId, q] of this.queues) {
        if (this.running >= this.settings.concurrency) break;
        if (q.running >= this.settings.perEndpoint) continue;
        const next = q.fresh.shift() ?? q.retries.shift();
        if (!next) {
          if (q.running === 0) this.queues.delete(endpointId);
          continue;
        }
        progressed = true;
        this.run(q, next);
      }
    }
  }

  private run(q: EndpointQueue, c: ClaimedDelivery): void {
    q.running += 1;
    this.running += 1;
    const queuedFor = performance.now() - (this.claimedAt.get(c.delivery.id) ?? performance.now());
    this.claimedAt.delete(c.delivery.id);
    this.attempt(c, this.owner)
      .then((outcome) => this.observer?.attempted(outcome, queuedFor))
      .catch((err: unknown) => {
        // The outcome could not be written: the lease runs out and the attempt is made again.
        this.logger.error({ err, deliveryId: c.delivery.id }, 'webhook attempt could not be recorded');
      })
      .finally(() => {
        q.running -= 1;
        this.running -= 1;
        this.held -= 1;
        if (c.delivery.attempts > 0) this.heldRetries -= 1;
        if (this.running === 0) this.idle.forEach((f) => f());
        if (!this.stopped) this.pump();
      });
  }

  private async giveBack(c: ClaimedDelivery): Promise<void> {
    if (this.claimedAt.delete(c.delivery.id)) {
      this.held -= 1;
      if (c.delivery.attempts > 0) this.heldRetries -= 1;
    }
    await this.claims.release(c.delivery.id, this.owner).catch((err: unknown) => this.logger.warn({ err }, 'could not give a delivery back'));
  }

  private queueOf(endpointId: string): EndpointQueue {
    let q = this.queues.get(endpointId);
    if (!q) {
      q = { running: 0, fresh: [], retries: [] };
      this.queues.set(endpointId, q);
    }
    return q;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
