// Entrypoint and composition root of the dispatcher process: it will deliver
// webhooks; for now it consumes its heartbeat, the follow-ups of workspace
// creation and the purge of expired request signatures.
import 'reflect-metadata';
import { PurgeIdempotencyKeys } from '../application/maintenance/purge-idempotency-keys.js';
import { PurgeRequestSignatures } from '../application/maintenance/purge-request-signatures.js';
import { enqueueNow } from '../adapters/jobs/pg-boss-jobs.js';
import type { Config } from './config.js';
import { isEntrypoint, runProcess } from './lifecycle.js';
import { consume, startWorker, type RunningWorker } from './worker-process.js';

export function startDispatcher(config: Config): Promise<RunningWorker> {
  return startWorker(config, {
    processName: 'dispatcher',
    port: config.ports.dispatcher,
    consumers: ({ logger, boss, container }) => {
      enqueueNow(boss, 'dispatch.heartbeat', { source: 'startup' }).catch((err: unknown) =>
        logger.error({ err }, 'could not enqueue the startup heartbeat'),
      );
      const purge = container.resolve(PurgeRequestSignatures);
      const purgeIdempotency = container.resolve(PurgeIdempotencyKeys);
      return [
        consume({
          name: 'dispatch.heartbeat',
          schedule: { cron: '* * * * *', data: { source: 'schedule' } },
          handler: async (job) => logger.info({ jobId: job.id, source: job.data.source }, 'dispatcher heartbeat'),
        }),
        consume({
          name: 'workspace.created',
          handler: async (job) => logger.info({ workspaceId: job.data.workspaceId }, 'workspace created'),
        }),
        consume({
          name: 'maintenance.purge-request-signatures',
          schedule: { cron: '* * * * *', data: {} },
          handler: async () => {
            const purged = await purge.execute();
            logger.debug({ purged }, 'expired request signatures purged');
          },
        }),
        consume({
          name: 'maintenance.purge-idempotency-keys',
          schedule: { cron: '7 * * * *', data: {} },
          handler: async () => {
            const purged = await purgeIdempotency.execute();
            logger.info({ purged }, 'expired idempotency keys purged');
          },
        }),
      ];
    },
  });
}

if (isEntrypoint(import.meta.url)) runProcess('dispatcher', startDispatcher);
