// pg-boss in the service's own database. Enqueueing inside a unit of work runs
// pg-boss's insert on the transaction's own connection (the outbox rule): a
// rollback leaves no job, a commit makes it visible to every other process.
import PgBoss from 'pg-boss';
import type { Knex } from '@mikro-orm/knex';
import type { JobName, JobPayloads } from '../../domain/jobs/job-names.js';
import type { JobQueue } from '../../domain/ports.js';
import { JOB_NAMES, parseJobPayload } from './catalogue.js';

export const PG_BOSS_SCHEMA = 'pgboss';

export interface JobContext<N extends JobName> {
  id: string;
  name: N;
  data: JobPayloads[N];
}

/** A handler may return an object: pg-boss keeps it as the job's output (ops deposit rescan reads it). */
export type JobHandler<N extends JobName> = (job: JobContext<N>) => Promise<void | Record<string, unknown>>;

/** How often pg-boss's maintenance (expiry, archiving) runs, in one process at a time. */
const MAINTENANCE_SECONDS = 30;

export function createBoss(databaseUrl: string, opts: { supervise?: boolean; schedule?: boolean } = {}): PgBoss {
  return new PgBoss({
    connectionString: databaseUrl,
    schema: PG_BOSS_SCHEMA,
    max: 4,
    supervise: opts.supervise ?? true,
    schedule: opts.schedule ?? true,
    // Expiry of jobs left active by a killed process runs in this maintenance (one process at a
    // time): every 30 s rather than pg-boss's 120 s, so a short `expireInSeconds` takes effect.
    maintenanceIntervalSeconds: MAINTENANCE_SECONDS,
    migrate: true,
  });
}

/** pg-boss's own default: a job still active 15 minutes after it started is taken as lost. */
const DEFAULT_EXPIRE_SECONDS = 15 * 60;

/**
 * Installs pg-boss's schema and every queue of the catalogue (idempotent). A queue that exists
 * already is brought to the catalogue's settings (pg-boss's createQueue leaves it as it was); a
 * job takes its queue's settings when it is inserted.
 */
export async function installQueues(boss: PgBoss): Promise<void> {
  for (const name of JOB_NAMES) {
    const options = { name, retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: DEFAULT_EXPIRE_SECONDS, ...QUEUE_OPTIONS[name] };
    await boss.createQueue(name, options);
    await boss.updateQueue(name, options);
  }
}

/**
 * Queues whose jobs run long enough to be caught by a killed worker: a job still active after
 * `expireInSeconds` is taken as lost and tried again (pg-boss's default is 15 minutes). A
 * reconciliation only reads and records, so a second run beside a slow first one is harmless.
 */
const QUEUE_OPTIONS: Partial<Record<JobName, { expireInSeconds: number }>> = {
  'ledger.reconcile': { expireInSeconds: 60 },
  // Only a trigger: the dispatcher fetches it, claims its delivery and completes it at once (the
  // claim then guards the delivery). Killed between the fetch and the completion, it would stay
  // active; expired, it is fetched again and completed (its delivery claimed or final by then, or
  // claimed now: the tick claims a pending delivery without its job anyway).
  'webhook.deliver': { expireInSeconds: 30 },
};

/** A JobQueue whose inserts run on the pinned connection of a knex transaction. */
export class TransactionalJobQueue implements JobQueue {
  private db: PgBoss.Db | null = null;

  constructor(
    private readonly boss: PgBoss,
    private readonly trx: Knex.Transaction,
  ) {}

  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<void> {
    const data = parseJobPayload(name, payload);
    await this.boss.send(name, data as object, { db: await this.connection() });
  }

  async enqueueMany<N extends JobName>(name: N, payloads: readonly JobPayloads[N][]): Promise<void> {
    if (payloads.length === 0) return;
    // pg-boss's insert takes the queue's own retry and expiry settings, as send does (its queue must exist, as
    // every queue of the catalogue does once installQueues has run: insert would drop a job of a missing one).
    await this.boss.insert(
      payloads.map((p) => ({ name, data: parseJobPayload(name, p) as object })),
      { db: await this.connection() },
    );
  }

  private async connection(): Promise<PgBoss.Db> {
    if (!this.db) {
      // knex pins one pg connection to a transaction; pg-boss's SQL uses native
      // $n placeholders, so it must go to that connection directly, not via knex.
      const conn = (await (this.trx.client as Knex.Client).acquireConnection()) as {
        query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
      };
      this.db = { executeSql: (text, values) => conn.query(text, values) as Promise<{ rows: any[] }> };
    }
    return this.db;
  }
}

/** Enqueues outside any transaction (jobs that follow no state change, like heartbeats). */
export async function enqueueNow<N extends JobName>(boss: PgBoss, name: N, payload: JobPayloads[N]): Promise<void> {
  await boss.send(name, parseJobPayload(name, payload) as object);
}

/** Consumes one job name, validating each payload against the catalogue. */
export async function workOn<N extends JobName>(
  boss: PgBoss,
  name: N,
  handler: JobHandler<N>,
  opts: { onDone?: (name: N, ok: boolean) => void } = {},
): Promise<string> {
  return boss.work<JobPayloads[N]>(name, { batchSize: 1, pollingIntervalSeconds: 1 }, async (jobs) => {
    let output: void | Record<string, unknown> = undefined;
    for (const job of jobs) {
      try {
        output = await handler({ id: job.id, name, data: parseJobPayload(name, job.data) });
        opts.onDone?.(name, true);
      } catch (err) {
        opts.onDone?.(name, false);
        throw err;
      }
    }
    return output;
  });
}
