// Webhook figures for `npm run bench`, each next to a baseline measured in the
// same run: deliveries per second to a local receiver that answers at once,
// against raw pg-boss moving the same number of jobs (draining a backlog, and
// sent one by one while a worker runs); and the time
// from an event's commit to its first attempt (p50, p99), against the same
// for a raw pg-boss job from send to its handler.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import PgBoss from 'pg-boss';
import { TOKENS } from '../src/application/tokens.js';
import { CreateWorkspace } from '../src/application/workspaces/create-workspace.js';
import { CreateWebhookEndpoint } from '../src/application/webhooks/create-webhook-endpoint.js';
import type { Principal } from '../src/domain/auth/principal.js';
import { startApi } from '../src/bootstrap/api.js';
import type { Config } from '../src/bootstrap/config.js';
import { startDispatcher } from '../src/bootstrap/dispatcher.js';
import type { UnitOfWork } from '../src/domain/ports.js';

export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  baseline: { name: string; value: number };
  /** value / baseline (for rates: higher is better; for latencies: lower is better). */
  ratio: number;
  goal?: string;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pool(total: number, concurrency: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await one(next++);
    }),
  );
}

/**
 * pg-boss's own fetch and complete in a loop, batches of 100, sleeping 200 ms
 * only when the queue is empty: the same polling the dispatcher uses
 * (WEBHOOK_POLL_MS), so the baseline is pg-boss itself, not its work() timer.
 */
async function rawWorker(boss: PgBoss, name: string, mode: 'loop' | 'work', onJob: (data: { i: number }) => void): Promise<() => Promise<void>> {
  if (mode === 'work') {
    // pg-boss's work(): batches of 100 at its shortest polling interval.
    const id = await boss.work<{ i: number }>(name, { batchSize: 100, pollingIntervalSeconds: 0.5 }, async (jobs) => {
      for (const j of jobs) onJob(j.data);
    });
    return () => boss.offWork({ id });
  }
  let running = true;
  const loop = (async () => {
    while (running) {
      const jobs = await boss.fetch<{ i: number }>(name, { batchSize: 100 });
      if (jobs.length === 0) {
        await sleep(200);
        continue;
      }
      await boss.complete(name, jobs.map((j) => j.id));
      for (const j of jobs) onJob(j.data);
    }
  })();
  return async () => {
    running = false;
    await loop;
  };
}

/** Raw pg-boss drain: `total` jobs already queued, worked by one worker (batches of 100); jobs/s. */
async function rawDrain(databaseUrl: string, total: number, mode: 'loop' | 'work'): Promise<number> {
  const boss = new PgBoss({ connectionString: databaseUrl, schema: `bench_boss_drain_${mode}`, max: 4 });
  await boss.start();
  await boss.createQueue('bench.drain');
  for (let i = 0; i < total; i += 500) {
    await boss.insert(Array.from({ length: Math.min(500, total - i) }, (_, j) => ({ name: 'bench.drain', data: { i: i + j } })));
  }
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((r) => (finished = r));
  const started = performance.now();
  const stop = await rawWorker(boss, 'bench.drain', mode, () => {
    if (++done === total) finished();
  });
  await all;
  const perSecond = total / ((performance.now() - started) / 1000);
  await stop();
  await boss.stop({ graceful: false, wait: true });
  return perSecond;
}

/** Raw pg-boss: `total` jobs sent (concurrency 10), worked by one worker; jobs/s, and send→handler latencies of paced jobs. */
async function rawPgBoss(databaseUrl: string, total: number, paced: number, mode: 'loop' | 'work'): Promise<{ perSecond: number; latencies: number[] }> {
  const boss = new PgBoss({ connectionString: databaseUrl, schema: `bench_boss_${mode}`, max: 4 });
  await boss.start();
  await boss.createQueue('bench.raw');
  let done = 0;
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let finished!: () => void;
  let target = total;
  let all = new Promise<void>((r) => (finished = r));
  const stop = await rawWorker(boss, 'bench.raw', mode, (data) => {
    const t = sentAt.get(String(data.i));
    if (t !== undefined) latencies.push(performance.now() - t);
    if (++done === target) finished();
  });
  const started = performance.now();
  await pool(total, 10, async (i) => {
    await boss.send('bench.raw', { i: -1 - i });
  });
  await all;
  const perSecond = total / ((performance.now() - started) / 1000);
  done = 0;
  target = paced;
  all = paced > 0 ? new Promise<void>((r) => (finished = r)) : Promise.resolve();
  for (let i = 0; i < paced; i++) {
    sentAt.set(String(i), performance.now());
    await boss.send('bench.raw', { i });
    await sleep(40);
  }
  await all;
  await stop();
  await boss.stop({ graceful: false, wait: true });
  return { perSecond, latencies: latencies.sort((a, b) => a - b) };
}

export async function benchWebhooks(config: Config, log: (line: string) => void): Promise<BenchRow[]> {
  const TOTAL = 2000;
  const PACED = 200;
  const raw = await rawPgBoss(config.databaseUrl!, TOTAL, PACED, 'loop');
  const rawWork = await rawPgBoss(config.databaseUrl!, TOTAL, 0, 'work');
  const rawDrained = await rawDrain(config.databaseUrl!, TOTAL, 'loop');
  const rawWorkDrained = await rawDrain(config.databaseUrl!, TOTAL, 'work');

  const arrivals: number[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.push(performance.now());
      res.writeHead(200).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await new Promise((r) => receiver.once('listening', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const settings = { ...config, webhookAllowPrivate: true, ports: { ...config.ports, api: 0, dispatcher: 0 } };
  const api = await startApi(settings);
  let dispatcher: Awaited<ReturnType<typeof startDispatcher>> | undefined;
  try {
    const ws = await api.infra.container.resolve(CreateWorkspace).execute({ name: 'bench-webhooks' });
    const principal: Principal = {
      workspaceId: ws.workspaceId,
      side: 'test',
      scopes: new Set(['webhooks:write']),
      apiKeyId: 'bench',
      keyId: 'bench',
      restrictions: { allowedIps: [], expiresAt: null },
    };
    await api.infra.container.resolve(CreateWebhookEndpoint).execute(principal, { url, events: ['BENEFICIARY_ADDED'] });
    const uow = api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const publish = (i: number) =>
      uow.run((tx) =>
        tx.events.publish({
          workspaceId: ws.workspaceId,
          side: 'test',
          event: 'BENEFICIARY_ADDED',
          data: { workspace_id: ws.workspaceId, chain: 'ETH_TESTNET', address: `0x${String(i).padStart(40, '0')}`, added_at: new Date().toISOString(), cooling_off_ends_at: null },
        }),
      );

    // Drain: deliveries already committed, then a dispatcher starts.
    await pool(TOTAL, 10, async (i) => {
      await publish(i);
    });
    const drainStarted = performance.now();
    dispatcher = await startDispatcher(settings);
    while (arrivals.length < TOTAL) await sleep(5);
    const drained = TOTAL / ((performance.now() - drainStarted) / 1000);
    arrivals.length = 0;

    // End to end: events published while the dispatcher runs.
    const started = performance.now();
    await pool(TOTAL, 10, async (i) => {
      await publish(TOTAL * 2 + i);
    });
    while (arrivals.length < TOTAL) await sleep(5);
    const perSecond = TOTAL / ((performance.now() - started) / 1000);

    arrivals.length = 0;
    const committedAt: number[] = [];
    for (let i = 0; i < PACED; i++) {
      await publish(TOTAL + i);
      committedAt.push(performance.now());
      await sleep(40);
    }
    while (arrivals.length < PACED) await sleep(5);
    const latencies = arrivals.map((a, i) => a - committedAt[i]!).sort((a, b) => a - b);

    const rows: BenchRow[] = [
      {
        name: 'webhook deliveries per second, draining a backlog (claim, sign, POST to a local receiver, record)',
        value: Math.round(drained),
        unit: 'deliveries/s',
        baseline: { name: 'raw pg-boss work() (batches of 100, 0.5 s polling) draining as many queued jobs, no-op handler', value: Math.round(rawWorkDrained) },
        ratio: Number((drained / rawWorkDrained).toFixed(2)),
        goal: 'ratio >= 0.5',
      },
      {
        name: 'webhook deliveries per second, end to end (publish in a transaction, claim, sign, POST, record)',
        value: Math.round(perSecond),
        unit: 'deliveries/s',
        baseline: { name: 'raw pg-boss send + work(), same count', value: Math.round(rawWork.perSecond) },
        ratio: Number((perSecond / rawWork.perSecond).toFixed(2)),
        goal: 'ratio >= 0.5',
      },
      {
        name: 'webhook deliveries per second, draining a backlog (claim, sign, POST to a local receiver, record)',
        value: Math.round(drained),
        unit: 'deliveries/s',
        baseline: { name: 'raw pg-boss fetch + complete in a tight loop draining as many queued jobs (no-op handler): its capacity', value: Math.round(rawDrained) },
        ratio: Number((drained / rawDrained).toFixed(2)),
      },
      {
        name: 'webhook deliveries per second, end to end (publish in a transaction, claim, sign, POST, record)',
        value: Math.round(perSecond),
        unit: 'deliveries/s',
        baseline: { name: 'raw pg-boss send + fetch/complete in a tight loop, same count: its capacity', value: Math.round(raw.perSecond) },
        ratio: Number((perSecond / raw.perSecond).toFixed(2)),
      },
      {
        name: 'webhook commit to first attempt, p50',
        value: Number(percentile(latencies, 0.5).toFixed(1)),
        unit: 'ms',
        baseline: { name: 'raw pg-boss send to handler, p50', value: Number(percentile(raw.latencies, 0.5).toFixed(1)) },
        ratio: Number((percentile(latencies, 0.5) / percentile(raw.latencies, 0.5)).toFixed(2)),
      },
      {
        name: 'webhook commit to first attempt, p99',
        value: Number(percentile(latencies, 0.99).toFixed(1)),
        unit: 'ms',
        baseline: { name: 'raw pg-boss send to handler, p99', value: Number(percentile(raw.latencies, 0.99).toFixed(1)) },
        ratio: Number((percentile(latencies, 0.99) / percentile(raw.latencies, 0.99)).toFixed(2)),
        goal: 'p99 < 1000 ms',
      },
    ];
    for (const r of rows) log(`${r.name}: ${r.value} ${r.unit}; baseline ${r.baseline.name}: ${r.baseline.value}; ratio ${r.ratio}${r.goal ? ` (goal ${r.goal})` : ''}`);
    return rows;
  } finally {
    await dispatcher?.close();
    await api.close();
    receiver.close();
  }
}
