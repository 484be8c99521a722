// Entrypoint and composition root of the dispatcher process: it delivers
// webhooks (the delivery loop), purges and reconciles their records, settles
// the fee commitments, reconciles the books with the chain (ledger.reconcile),
// and runs the service's housekeeping jobs.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { FoldListCounts } from '../application/maintenance/fold-list-counts.js';
import { PurgeIdempotencyKeys } from '../application/maintenance/purge-idempotency-keys.js';
import { PurgeRequestSignatures } from '../application/maintenance/purge-request-signatures.js';
import { PurgeWebhookDeliveries } from '../application/maintenance/purge-webhook-deliveries.js';
import { TOKENS } from '../application/tokens.js';
import { AttemptDelivery, type AttemptOutcome } from '../application/webhooks/attempt-delivery.js';
import { ReconcileSettlements } from '../application/webhooks/reconcile-settlements.js';
import { SettleCommitments } from '../application/commitments/settle-commitments.js';
import { SendDeadEndpointNotice } from '../application/webhooks/send-dead-endpoint-notice.js';
import type { Clock } from '../domain/ports.js';
import type { DeliveryClaims, WebhookHousekeeping } from '../domain/webhooks/ports.js';
import { enqueueNow } from '../adapters/jobs/pg-boss-jobs.js';
import { createReconcileMetrics, createWebhookMetrics } from '../adapters/metrics/metrics.js';
import { createNodeObserver } from '../adapters/metrics/node-metrics.js';
import { ReconcileChain, type ReconcileOptions } from '../application/ledger/reconcile-chain.js';
import type { ChainSender } from '../domain/transfers/ports.js';
import { DispatchLoop } from '../adapters/webhooks/dispatch-loop.js';
import { HttpWebhookSender } from '../adapters/webhooks/http-sender.js';
import type { Config } from './config.js';
import type { Infrastructure } from './infrastructure.js';
import { isEntrypoint, runProcess } from './lifecycle.js';
import { consume, startWorker, type RunningWorker } from './worker-process.js';
import { patiently } from '../adapters/chains/url-pool.js';

/** A cron expression for every `minutes` (1 to 1440). */
export const everyMinutes = (minutes: number): string =>
  minutes < 60 ? `*/${minutes} * * * *` : minutes % 60 === 0 && minutes < 1440 ? `0 */${minutes / 60} * * *` : '0 0 * * *';

export interface RunningDispatcher extends RunningWorker {
  /** The delivery loop (tests tick it by hand). */
  dispatch: DispatchLoop;
}

export async function startDispatcher(config: Config, opts: { clock?: Clock } = {}): Promise<RunningDispatcher> {
  let dispatch: DispatchLoop | undefined;
  const worker = await startWorker(config, {
    processName: 'dispatcher',
    port: config.ports.dispatcher,
    clock: opts.clock,
    consumers: ({ logger, boss, container, metrics }) => {
      let reconciling: Promise<ChainSender[]> | undefined;
      const reconcileMetrics = createReconcileMetrics(metrics.registry);
      enqueueNow(boss, 'dispatch.heartbeat', { source: 'startup' }).catch((err: unknown) =>
        logger.error({ err }, 'could not enqueue the startup heartbeat'),
      );
      const purge = container.resolve(PurgeRequestSignatures);
      const purgeIdempotency = container.resolve(PurgeIdempotencyKeys);
      const foldCounts = container.resolve(FoldListCounts);
      const purgeDeliveries = container.resolve(PurgeWebhookDeliveries);
      const reconcile = container.resolve(ReconcileSettlements);
      const settle = container.resolve(SettleCommitments);
      const notice = container.resolve(SendDeadEndpointNotice);
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
          name: 'maintenance.fold-list-counts',
          schedule: { cron: '* * * * *', data: {} },
          handler: async () => {
            const folded = await foldCounts.execute();
            logger.debug({ folded }, 'list counters folded');
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
        consume({
          name: 'webhook.purge',
          schedule: { cron: '23 3 * * *', data: {} },
          handler: async () => {
            const purged = await purgeDeliveries.execute();
            logger.info(purged, 'webhook deliveries past their 90 days purged');
          },
        }),
        consume({
          name: 'webhook.dead-endpoint-notice',
          handler: async (job) => {
            const outcome = await notice.execute(job.data);
            logger.warn({ endpointId: job.data.endpointId, failures: job.data.failures, sent: outcome.sent }, 'dead webhook endpoint notice');
          },
        }),
        consume({
          name: 'webhook.reconcile',
          schedule: { cron: '*/5 * * * *', data: {} },
          handler: async () => {
            const created = await reconcile.execute();
            if (created > 0) logger.warn({ created }, 'settlement events that never got a delivery were queued again');
          },
        }),
        consume({
          name: 'ledger.reconcile',
          schedule: { cron: everyMinutes(config.reconcile.everyMinutes), data: {} },
          handler: async () => {
            // The chain adapters load on the first run only (tronweb and the pools are not needed before).
            reconciling ??= import('./chain-ports.js').then(({ createChainPorts, sendersOf }) =>
              sendersOf(createChainPorts(config, createNodeObserver(metrics.registry, logger.child({ component: 'nodes' })))),
            );
            const opts = container.resolve<ReconcileOptions>(TOKENS.ReconcileOptions);
            for (const sender of await reconciling) {
              // A network whose nodes keep failing is said in one line; the others are reconciled all the same.
              const report = await patiently(() => container.resolve(ReconcileChain).execute(sender, opts)).catch((err: unknown) => {
                logger.error({ network: sender.network, err: (err as Error).message }, 'reconciliation with the chain failed: the nodes did not answer; the next run tries again');
                return null;
              });
              if (!report) continue;
              for (const a of report.assets) reconcileMetrics.difference.set({ network: a.network, asset: a.asset }, Number(a.difference));
              reconcileMetrics.held.set({ network: report.network }, report.held ? 1 : 0);
              const line = {
                network: report.network,
                block: report.block.toString(),
                assets: report.assets.map((a) => ({ asset: a.asset, expected: a.expected.toString(), onChain: a.onChain.toString(), difference: a.difference.toString() })),
                involved: report.involved.map((i) => ({ ...i, amount: i.amount.toString() })),
                held: report.held,
              };
              if (report.ok) logger.info(line, 'the chain agrees with the books');
              else logger.error(line, `the chain and the books differ${report.held ? ': payouts held until an operator runs ops payouts resume' : ''}`);
            }
          },
        }),
        consume({
          name: 'commitment.settle',
          schedule: { cron: '5 * * * *', data: {} },
          handler: async () => {
            const { settled, failed, recovered } = await settle.run();
            if (settled > 0 || recovered > 0) logger.info({ settled, recovered }, 'fee commitments settled');
            if (failed.length > 0) logger.error({ failed }, 'fee commitments could not be settled; the next run tries again');
          },
        }),
      ];
    },
    background: (infra) => {
      const sender = new HttpWebhookSender(config.webhookReach);
      const loop = deliveryLoop(config, infra, sender);
      dispatch = loop;
      return [
        {
          start: () => loop.start(),
          async stop(graceMs: number) {
            await loop.stop(graceMs);
            sender.close();
          },
        },
      ];
    },
  });
  return { ...worker, dispatch: dispatch! };
}

function deliveryLoop(config: Config, { boss, container, logger, metrics }: Infrastructure, sender: HttpWebhookSender): DispatchLoop {
  container.register(TOKENS.WebhookSender, { useValue: sender });
  const clock = container.resolve<Clock>(TOKENS.Clock);
  const housekeeping = container.resolve<WebhookHousekeeping>(TOKENS.WebhookHousekeeping);
  const webhookMetrics = createWebhookMetrics(metrics.registry, () => housekeeping.oldestPending(clock.now()));
  const attempt = container.resolve(AttemptDelivery);
  const outcomeOf = (o: AttemptOutcome) => (o.status === 'PENDING' ? 'retry' : o.status.toLowerCase());
  return new DispatchLoop(
    boss,
    container.resolve<DeliveryClaims>(TOKENS.DeliveryClaims),
    (claimed, owner) => attempt.execute(claimed, owner),
    clock,
    logger,
    config.webhookDispatch,
    randomUUID(),
    {
      attempted(outcome, queuedMs) {
        const label = outcomeOf(outcome);
        webhookMetrics.attempts.inc({ outcome: label });
        webhookMetrics.attemptSeconds.observe({ outcome: label }, outcome.result.durationMs / 1000);
        webhookMetrics.queuedSeconds.observe(queuedMs / 1000);
        const log = outcome.status === 'PENDING' || outcome.status === 'DELIVERED' ? logger.debug : logger.warn;
        log.call(logger, { deliveryId: outcome.deliveryId, endpointId: outcome.endpointId, outcome: label, attempt: outcome.attempt, responseStatus: outcome.result.responseStatus, error: outcome.result.error }, 'webhook attempt');
      },
    },
  );
}

if (isEntrypoint(import.meta.url)) runProcess('dispatcher', startDispatcher);
