// Entrypoint and composition root of the chain-worker process: it will watch
// the chains and move funds; for now it proves it consumes work (heartbeat).
import 'reflect-metadata';
import { enqueueNow } from '../adapters/jobs/pg-boss-jobs.js';
import type { Config } from './config.js';
import { isEntrypoint, runProcess } from './lifecycle.js';
import { consume, startWorker, type RunningWorker } from './worker-process.js';

export function startChainWorker(config: Config): Promise<RunningWorker> {
  return startWorker(config, {
    processName: 'chain-worker',
    port: config.ports.chainWorker,
    consumers: ({ logger, boss }) => {
      enqueueNow(boss, 'chain.heartbeat', { source: 'startup' }).catch((err: unknown) =>
        logger.error({ err }, 'could not enqueue the startup heartbeat'),
      );
      return [
        consume({
          name: 'chain.heartbeat',
          schedule: { cron: '* * * * *', data: { source: 'schedule' } },
          handler: async (job) => logger.info({ jobId: job.id, source: job.data.source }, 'chain-worker heartbeat'),
        }),
      ];
    },
  });
}

if (isEntrypoint(import.meta.url)) runProcess('chain-worker', startChainWorker);
