// What the two worker processes share: pg-boss consumers with metrics, the
// probes on their own port, and a graceful stop that lets jobs in flight finish.
import type { AddressInfo } from 'node:net';
import type { JobName } from '../domain/jobs/job-names.js';
import type { Clock } from '../domain/ports.js';
import { workOn, type JobHandler } from '../adapters/jobs/pg-boss-jobs.js';
import { answerClientErrors } from '../adapters/http/client-error.js';
import { closeServer, httpGraceMs } from '../adapters/http/close-server.js';
import { buildProbeApp } from '../adapters/http/probes.js';
import type { Config } from './config.js';
import { openInfrastructure, type Infrastructure } from './infrastructure.js';
import { listening, type Running } from './lifecycle.js';
import type { SeedUse } from './secrets.js';

export interface Consumer<N extends JobName = JobName> {
  name: N;
  handler: JobHandler<N>;
  /** When the job is also scheduled by this process: a cron expression and the payload. */
  schedule?: { cron: string; data: object };
}

/** Types a consumer by its job name, so its handler sees that job's payload. */
export const consume = <N extends JobName>(c: Consumer<N>): Consumer => c as unknown as Consumer;

/** Work a process runs beside its job consumers (the dispatcher's delivery loop). */
export interface BackgroundService {
  start(): void;
  /** Stops taking work and lets work in flight finish, within `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

export interface RunningWorker extends Running {
  port: number;
  infra: Infrastructure;
}

export async function startWorker(
  config: Config,
  opts: {
    processName: string;
    port: number;
    consumers: (infra: Infrastructure) => Consumer[];
    background?: (infra: Infrastructure) => BackgroundService[];
    clock?: Clock;
    /** Whether the process loads the master seed (only the chain-worker signs); none when absent. */
    seed?: SeedUse;
    /** Work done once before the process answers on its port (the chain-worker's first refill of account keys). */
    prepare?: (infra: Infrastructure) => Promise<void>;
  },
): Promise<RunningWorker> {
  const infra = await openInfrastructure(config, { processName: opts.processName, runsWorkers: true, clock: opts.clock, seed: opts.seed });
  const { boss, metrics, logger } = infra;
  for (const consumer of opts.consumers(infra)) {
    await workOn(boss, consumer.name, consumer.handler as JobHandler<JobName>, {
      onDone: (name, ok) => (ok ? metrics.jobsProcessed : metrics.jobsFailed).inc({ name }),
    });
    if (consumer.schedule) {
      await boss.schedule(consumer.name, consumer.schedule.cron, consumer.schedule.data, { tz: 'UTC' });
    }
  }

  await opts.prepare?.(infra);
  const background = opts.background?.(infra) ?? [];
  background.forEach((b) => b.start());

  const app = buildProbeApp({ registry: metrics.registry, ready: () => infra.ready() });
  const server = app.listen(opts.port, config.host);
  answerClientErrors(server);
  await listening(server, opts.processName === 'chain-worker' ? 'CHAIN_WORKER_PORT' : 'DISPATCHER_PORT', opts.port, config.host);
  const port = (server.address() as AddressInfo).port;
  logger.info({ url: `http://${config.host}:${port}` }, `${opts.processName} listening`);
  return {
    port,
    infra,
    async close() {
      const closed = closeServer(server, httpGraceMs(config.shutdownTimeoutMs));
      await Promise.all(background.map((b) => b.stop(Math.max(1000, config.shutdownTimeoutMs - 3000))));
      await infra.close();
      await closed;
    },
  };
}
