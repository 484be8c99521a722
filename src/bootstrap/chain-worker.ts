// Entrypoint and composition root of the chain-worker process: one deposit
// scanner per network with a node (ScannerLoop over ScanNetwork), one sending
// loop per network that can send (SenderLoop: sweeps and the outgoing-transfer
// pipeline), the operator's rescans (deposit.rescan jobs), a heartbeat, and
// the pool of account xpubs the api derives addresses from
// (custody.refill-xpubs). It is the one process that loads the master seed
// and signs (ADR 0026).
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { RefillAccountKeys } from '../application/custody/refill-account-keys.js';
import { RescanTransaction } from '../application/deposits/rescan-transaction.js';
import { arrivalView, RecoverUnexpected } from '../application/deposits/recover-unexpected.js';
import { DomainError } from '../domain/errors.js';
import { CHAIN_ASSETS, baseChainOf } from '../domain/money/networks.js';
import { ScanNetwork } from '../application/deposits/scan-network.js';
import { RunSweeps } from '../application/sweeps/run-sweeps.js';
import { LendEnergy } from '../application/energy/lend-energy.js';
import { SendWithdrawals } from '../application/withdrawals/send-withdrawals.js';
import { SendDrips } from '../application/faucet/send-drips.js';
import { ProcessTransfers, TransferOutcomes } from '../application/transfers/process-transfers.js';
import type { TransferRepo } from '../domain/transfers/ports.js';
import { SenderLoop, type SenderLoopOptions } from '../adapters/chains/sender-loop.js';
import { TOKENS } from '../application/tokens.js';
import type { ChainPort } from '../domain/chains/chain-port.js';
import type { DepositRepo } from '../domain/deposits/ports.js';
import type { Clock, UnitOfWork } from '../domain/ports.js';
import { ScannerLoop, type ScannerLoopOptions } from '../adapters/chains/scanner-loop.js';
import { enqueueNow } from '../adapters/jobs/pg-boss-jobs.js';
import { createCustodyMetrics, createScannerMetrics, createSendingMetrics } from '../adapters/metrics/metrics.js';
import { CustodyLoop } from '../adapters/chains/custody-loop.js';
import { WatchTreasuryPolicies } from '../application/custody/watch-treasury-policies.js';
import { ForwardSurplus } from '../application/custody/forward-surplus.js';
import { RecognizeRefills } from '../application/custody/recognize-refills.js';
import { ReconcileCold } from '../application/custody/reconcile-cold.js';
import { createNodeObserver, urlLabel } from '../adapters/metrics/node-metrics.js';
import { CheckNodes } from '../application/chains/check-nodes.js';
import type { NodeProbe } from '../domain/chains/node-probe.js';
import type { Infrastructure } from './infrastructure.js';
import type { Config } from './config.js';
import { createChainPorts, sendersOf } from './chain-ports.js';
import { isEntrypoint, runProcess } from './lifecycle.js';
import { consume, startWorker, type RunningWorker } from './worker-process.js';

export interface ChainWorkerOptions {
  /** The chains to scan; by default one adapter per network with a node URL in the configuration. */
  ports?: ChainPort[];
  clock?: Clock;
  scan?: Partial<ScannerLoopOptions>;
  sending?: Partial<SenderLoopOptions>;
  /** Accounts ahead of the sequence to record xpubs for ACCOUNT_KEY_POOL.size unless given. */
  accountKeyPool?: number;
}

export function startChainWorker(config: Config, opts: ChainWorkerOptions = {}): Promise<RunningWorker> {
  // Each process scans under its own name: a restarted process waits for its predecessor's lease to run out.
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  let made: ChainPort[] | undefined;
  // Each node URL's errors, penalties, lag and unusability: metrics and log lines.
  const portsOf = ({ metrics, logger }: Infrastructure) =>
    (made ??= opts.ports ?? createChainPorts(config, createNodeObserver(metrics.registry, logger.child({ component: 'nodes' }))));
  return startWorker(config, {
    processName: 'chain-worker',
    port: config.ports.chainWorker,
    clock: opts.clock,
    seed: 'required',
    // The pool is filled before the process reports ready: a sandbox's first wallet finds its account's key.
    prepare: async ({ logger, container }) => {
      try {
        const { added } = await container.resolve(RefillAccountKeys).execute({ poolSize: opts.accountKeyPool });
        logger.info({ added }, 'account keys recorded');
      } catch (err) {
        logger.error({ err }, 'could not record account keys; the scheduled refill tries again');
      }
    },
    consumers: (infra) => {
      const { logger, boss, container } = infra;
      enqueueNow(boss, 'chain.heartbeat', { source: 'startup' }).catch((err: unknown) =>
        logger.error({ err }, 'could not enqueue the startup heartbeat'),
      );
      const ports = portsOf(infra);
      return [
        consume({
          name: 'chain.heartbeat',
          schedule: { cron: '* * * * *', data: { source: 'schedule' } },
          handler: async (job) => logger.info({ jobId: job.id, source: job.data.source }, 'chain-worker heartbeat'),
        }),
        consume({
          name: 'custody.refill-xpubs',
          schedule: { cron: '* * * * *', data: { reason: 'schedule' } },
          handler: async (job) => {
            const { added } = await container.resolve(RefillAccountKeys).execute({ poolSize: opts.accountKeyPool });
            if (added > 0) logger.info({ added, reason: job.data.reason }, 'account keys recorded');
            return { added };
          },
        }),
        consume({
          name: 'deposit.rescan',
          handler: async (job) => {
            const port = ports.find((p) => p.network === job.data.network);
            if (!port) throw new Error(`no node is configured for ${job.data.network} (set ${job.data.network}_RPC_URL)`);
            const result = await container.resolve(RescanTransaction).execute(port, job.data.txid);
            logger.info({ network: port.network, txid: job.data.txid, ...result }, 'rescan done');
            return { ...result };
          },
        }),
        ...(['deposit.credit-unexpected', 'deposit.return-unexpected'] as const).map((name) =>
          consume({
            name,
            handler: async (job) => {
              const port = ports.find((p) => p.network === job.data.network);
              if (!port) throw new Error(`no node is configured for ${job.data.network} (set ${job.data.network}_RPC_URL)`);
              try {
                const recover = container.resolve(RecoverUnexpected);
                const r = name === 'deposit.credit-unexpected' ? await recover.credit(port, job.data.id) : await recover.markReturn(port, job.data.id);
                logger.info({ network: port.network, id: job.data.id, outcome: r.outcome }, `unexpected arrival: ${name === 'deposit.credit-unexpected' ? 'credit' : 'return'}`);
                return { ...arrivalView(r.arrival), outcome: r.outcome, deposit_id: 'depositId' in r ? r.depositId : r.arrival.depositId, reason: 'reason' in r ? r.reason : null };
              } catch (err: unknown) {
                // The operator's mistake (no such arrival, one already returned) is an answer, not a job to try again.
                if (err instanceof DomainError) return { ok: false, error: err.message, code: err.code };
                throw err;
              }
            },
          }),
        ),
      ];
    },
    background: (infra) => {
      const { logger, container, metrics } = infra;
      const ports = portsOf(infra);
      const uow = container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
      const scannerMetrics = createScannerMetrics(
        metrics.registry,
        () => uow.run((tx) => (tx.deposits as DepositRepo).countByStatus()),
        // Every asset of each network scanned has its series, 0 when nothing waits (an alert sees it go back down).
        async () => {
          const listed = await uow.run((tx) => tx.unexpected.listedTotals());
          const zeros = ports.flatMap((p) => CHAIN_ASSETS[baseChainOf(p.network)].map((asset) => ({ network: p.network, asset, count: 0 })));
          return [...zeros.filter((z) => !listed.some((l) => l.network === z.network && l.asset === z.asset)), ...listed];
        },
      );
      const loopOptions: ScannerLoopOptions = { ...config.scanner, owner, ...opts.scan };
      for (const p of ports) logger.info({ network: p.network }, 'scanning for deposits');
      // Every node URL probed once at start-up (ops chains check does the same on demand): a URL of another
      // chain, refusing getLogs or keeping no transaction history is said in one line and left out.
      container.register(TOKENS.NodeProbes, { useValue: ports.filter((p) => typeof (p as Partial<NodeProbe>).probe === 'function') });
      container
        .resolve(CheckNodes)
        .execute()
        .then((checks) => {
          for (const c of checks) {
            const line = { network: c.network, url: urlLabel(c.url), head: c.head?.toString() ?? null, logs: c.logs, history: c.history, lag: c.lag };
            if (c.usable && c.problems.length === 0) logger.info(line, 'node check: usable');
            else (c.usable ? logger.warn : logger.error).call(logger, { ...line, problems: c.problems }, `node check: ${c.usable ? '' : 'UNUSABLE: '}${c.problems.join('; ')}`);
          }
        })
        .catch((err: unknown) => logger.warn({ err }, 'node check failed; the scanner and the sender find out for themselves'));
      const senders = sendersOf(ports);
      for (const p of senders) logger.info({ network: p.network }, 'sending: sweeps and outgoing transfers');
      const sendingMetrics = createSendingMetrics(metrics.registry, () =>
        uow.run((tx) => (tx.transfers as TransferRepo).countByKindAndStatus()),
      );
      // One registry of who owns which transfers, shared by the pipeline and the use cases that request them.
      container.registerInstance(TransferOutcomes, new TransferOutcomes());
      // One lender of TRON energy too: what each sweep or payout registers with it is seen by the outcomes it handles.
      container.registerSingleton(LendEnergy);
      return [
        new SenderLoop(
          container.resolve(RunSweeps),
          container.resolve(ProcessTransfers),
          container.resolve(SendWithdrawals),
          container.resolve(SendDrips),
          senders,
          { ...config.sending, ...opts.sending },
          logger,
          sendingMetrics,
        ),
        new ScannerLoop(container.resolve(ScanNetwork), ports, loopOptions, logger, scannerMetrics, (port) =>
          uow.run((tx) => tx.scanState.release(port.network, owner)),
        ),
        new CustodyLoop(
          container.resolve(WatchTreasuryPolicies),
          container.resolve(ForwardSurplus),
          container.resolve(RecognizeRefills),
          container.resolve(ReconcileCold),
          senders,
          { intervalMs: Math.max(config.sending.intervalMs, 1000) },
          logger,
          createCustodyMetrics(metrics.registry),
        ),
      ];
    },
  });
}

if (isEntrypoint(import.meta.url)) runProcess('chain-worker', startChainWorker, { requireSeed: true });
