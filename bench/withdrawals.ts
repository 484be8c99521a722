// Withdrawal request figures for `npm run bench` (issue 16), next to a
// baseline from the same run on the same database:
// - signed POST /v2/withdrawals over real HTTP, spread over 50 workspaces
//   (test keys, each with its own Idempotency-Key), concurrency 20:
//   requests/s and p50/p99;
// - baseline: a raw `pg` transaction per request running the same
//   statements by hand (record the idempotency key, read the workspace, the
//   fee tiers and override, insert the journal entry, move available to
//   locked, insert its two postings and the withdrawal, store the response),
//   on a pool of 10 connections, at the same concurrency. The baseline leaves
//   out authentication and request admission, which the service also does.
// Create-to-broadcast times need a chain-worker and a node: not measured here.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { CreateWorkspace, type CreatedWorkspace } from '../src/application/workspaces/create-workspace.js';
import { TOKENS } from '../src/application/tokens.js';
import { startApi } from '../src/bootstrap/api.js';
import type { Config } from '../src/bootstrap/config.js';
import { creditDeposit } from '../src/domain/ledger/entries.js';
import { Amount } from '../src/domain/money/amount.js';
import type { UnitOfWork } from '../src/domain/ports.js';
import { authHeaders } from '../src/sdk/signing.js';
import type { BenchRow } from './webhooks.js';

const WORKSPACES = 50;
const REQUESTS = 2000;
const CONCURRENCY = 20;
const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function run(total: number, one: (i: number) => Promise<boolean>): Promise<{ perSecond: number; p50: number; p99: number; failed: number }> {
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        if (!(await one(i))) failed++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: total / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), failed };
}

export async function benchWithdrawals(config: Config, log: (line: string) => void): Promise<BenchRow[]> {
  const api = await startApi({ ...config, ports: { ...config.ports, api: 0 } });
  const base = `http://127.0.0.1:${api.port}`;
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
  try {
    const uow = api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const workspaces: CreatedWorkspace[] = [];
    for (let i = 0; i < WORKSPACES; i++) {
      const ws = await api.infra.container.resolve(CreateWorkspace).execute({ name: `withdrawal-bench-${i}` });
      await uow.run((tx) =>
        tx.ledger.post(
          creditDeposit({ id: randomUUID(), network: 'ETH_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: ws.workspaceId, gross: Amount.parse('1000000', 'USDT_ETH'), fee: Amount.zero('USDT_ETH') }),
        ),
      );
      workspaces.push(ws);
    }
    log(`withdrawal bench: ${WORKSPACES} workspaces funded`);
    const failures = new Set<string>();
    const post = async (i: number, key: string) => {
      const ws = workspaces[i % WORKSPACES]!;
      // A query that differs per request: two identical requests signed in the same second would be a replay.
      const path = `/v2/withdrawals?r=${key}`;
      const body = JSON.stringify({ chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: DESTINATION });
      const res = await fetch(base + path, {
        method: 'POST',
        body,
        headers: { ...authHeaders(ws.testKey.keyId, { secret: ws.testKey.secret, method: 'POST', path, body }), 'Content-Type': 'application/json', 'Idempotency-Key': key },
      });
      const text = await res.text();
      if (res.status !== 201 && failures.size < 3) failures.add(`${res.status} ${text.slice(0, 120)}`);
      return res.status === 201;
    };
    await run(100, (i) => post(i, `warm-${i}`));
    const service = await run(REQUESTS, (i) => post(i, `bench-${i}`));
    log(
      `POST /v2/withdrawals: ${REQUESTS} over ${WORKSPACES} workspaces, concurrency ${CONCURRENCY}: ${service.perSecond.toFixed(0)} req/s, p50 ${service.p50.toFixed(1)} ms, p99 ${service.p99.toFixed(1)} ms (${service.failed} not 201)`,
    );
    for (const f of failures) log(`  not 201: ${f}`);

    // Baseline: the same statements in one raw pg transaction each.
    const accounts = new Map<string, { available: number; locked: number }>();
    for (const ws of workspaces) {
      const { rows } = await pool.query<{ id: number; kind: string }>(
        `insert into ledger_accounts (owner, kind, network, asset, balance) values ($1, 'AVAILABLE', 'ETH_TESTNET', 'USDT_ETH', 0), ($1, 'LOCKED', 'ETH_TESTNET', 'USDT_ETH', 0)
         on conflict (owner, kind, network, asset) do update set owner = excluded.owner returning id, kind`,
        [ws.workspaceId],
      );
      accounts.set(ws.workspaceId, { available: rows.find((r) => r.kind === 'AVAILABLE')!.id, locked: rows.find((r) => r.kind === 'LOCKED')!.id });
    }
    const raw = async (i: number) => {
      const ws = workspaces[i % WORKSPACES]!;
      const acc = accounts.get(ws.workspaceId)!;
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query(`select pg_advisory_xact_lock(hashtext($1))`, [`${ws.workspaceId}:raw-${i}`]);
        await client.query(`select response_status from idempotency_keys where workspace_id = $1 and side = 'test' and method = 'POST' and path = '/v2/withdrawals' and key = $2`, [
          ws.workspaceId,
          `raw-${i}`,
        ]);
        await client.query(`select withdrawals_frozen from workspaces where id = $1`, [ws.workspaceId]);
        await client.query(`select * from fee_tiers`);
        await client.query(`select * from fee_overrides where workspace_id = $1`, [ws.workspaceId]);
        const entry = randomUUID();
        const id = randomUUID();
        await client.query(
          `insert into journal_entries (id, kind, reference, workspace_id, network, asset, created_at) values ($1, 'WITHDRAWAL_LOCK', $2, $3, 'ETH_TESTNET', 'USDT_ETH', now())`,
          [entry, `withdrawal:${id}:lock`, ws.workspaceId],
        );
        const moved = await client.query(`update ledger_accounts set balance = balance - 10000000 where id = $1 and balance >= 10000000 returning balance`, [acc.available]);
        if (moved.rowCount !== 1) throw new Error('insufficient');
        await client.query(`update ledger_accounts set balance = balance + 10000000 where id = $1`, [acc.locked]);
        await client.query(`insert into postings (entry_id, account_id, amount) values ($1, $2, -10000000), ($1, $3, 10000000)`, [entry, acc.available, acc.locked]);
        await client.query(
          `insert into withdrawals (id, workspace_id, network, asset, amount, fee, net_amount, destination, status, requested_at, updated_at)
           values ($1, $2, 'ETH_TESTNET', 'USDT_ETH', 10000000, 5000000, 5000000, $3, 'PENDING', now(), now())`,
          [id, ws.workspaceId, DESTINATION],
        );
        await client.query(
          `insert into idempotency_keys (workspace_id, side, method, path, key, fingerprint, response_status, response_body, created_at, expires_at)
           values ($1, 'test', 'POST', '/v2/withdrawals', $2, 'f', 201, '{}'::jsonb, now(), now() + interval '1 day')`,
          [ws.workspaceId, `raw-${i}`],
        );
        await client.query('commit');
        return true;
      } catch {
        await client.query('rollback');
        return false;
      } finally {
        client.release();
      }
    };
    await run(100, (i) => raw(100_000 + i));
    const baseline = await run(REQUESTS, raw);
    log(`raw pg, the same statements: ${baseline.perSecond.toFixed(0)} tx/s, p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms (${baseline.failed} failed)`);
    return [
      {
        name: `signed POST /v2/withdrawals over ${WORKSPACES} workspaces, concurrency ${CONCURRENCY} (auth, idempotency, checks, fee, lock, row)`,
        value: Math.round(service.perSecond),
        unit: 'req/s',
        baseline: { name: 'a raw pg transaction of the same statements, same concurrency', value: Math.round(baseline.perSecond) },
        ratio: Number((service.perSecond / baseline.perSecond).toFixed(2)),
        goal: 'at least 0.40',
      },
      {
        name: 'signed POST /v2/withdrawals p99 latency, concurrency 20',
        value: Number(service.p99.toFixed(1)),
        unit: 'ms',
        baseline: { name: 'the raw pg transaction p99', value: Number(baseline.p99.toFixed(1)) },
        ratio: Number((service.p99 / baseline.p99).toFixed(2)),
      },
    ];
  } finally {
    await pool.end();
    await api.close();
  }
}
