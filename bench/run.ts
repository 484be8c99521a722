// `npm run bench`: figures for the hot paths, measured on this machine against
// an embedded PostgreSQL (or DATABASE_URL). Prints one line per measurement.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { startTemporaryPostgres } from '../src/adapters/sandbox/embedded-postgres.js';
import pg from 'pg';
import { CreateWorkspace } from '../src/application/workspaces/create-workspace.js';
import { startApi } from '../src/bootstrap/api.js';
import { parseConfig } from '../src/bootstrap/config.js';
import { prepareDatabase } from '../src/bootstrap/prepare-database.js';
import { authHeaders } from '../src/sdk/signing.js';
import { benchDerivation } from './derivation.js';
import { benchWebhooks } from './webhooks.js';
import { benchAddressLookup, benchDetection } from './deposits.js';
import { benchSweeps } from './sweeps.js';
import { benchTronSweeps } from './tron-sweeps.js';
import { benchWithdrawals } from './withdrawals.js';
import { benchReads } from './reads.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

const SEED = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

async function database(): Promise<{ url: string; stop: () => Promise<void> }> {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  if (process.env.DATABASE_URL) {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = `/${name}`;
    return { url: u.toString(), stop: async () => {} };
  }
  const server = await startTemporaryPostgres({ port: 20000 + Math.floor(Math.random() * 20000), prefix: 'wallet-bench-' });
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(server.url);
  u.pathname = `/${name}`;
  return { url: u.toString(), stop: server.stop };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function load(name: string, total: number, concurrency: number, one: (i: number) => Promise<number>) {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        const status = await one(i);
        latencies.push(performance.now() - t);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const codes = [...statuses].map(([s, n]) => `${s}×${n}`).join(' ');
  console.log(
    `${name}: ${total} requests, concurrency ${concurrency}: ${(total / seconds).toFixed(0)} req/s, ` +
      `p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms (${codes})`,
  );
}

/** `npm run bench -- sweeps` (EVM and TRON), `-- tron-sweeps`, `-- withdrawals` or `-- reads`: only the named group; its rows replace the same rows of bench/results.json. */
const only = process.argv[2];
if (!only) await benchDerivation();

const db = await database();
try {
  await prepareDatabase(db.url);
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    MASTER_SEED: SEED,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
  };
  const config = parseConfig(env);
  if (only === 'sweeps' || only === 'tron-sweeps' || only === 'withdrawals' || only === 'reads') {
    const say = (line: string) => console.log(line);
    const rows =
      only === 'withdrawals'
        ? await benchWithdrawals(config, env, SEED, say)
        : only === 'reads'
          ? await benchReads(config, env, say)
          : [...(only === 'sweeps' ? await benchSweeps(config, SEED, say) : []), ...(await benchTronSweeps(config, SEED, say))];
    const file = new URL('./results.json', import.meta.url);
    const previous = JSON.parse(readFileSync(file, 'utf8')) as { rows: { name: string }[] };
    const kept = previous.rows.filter((r) => !rows.some((n) => n.name === r.name));
    writeFileSync(file, `${JSON.stringify({ measured_at: new Date().toISOString(), machine: { cpus: cpus().length, node: process.version }, rows: [...kept, ...rows] }, null, 2)}\n`);
    console.log('bench/results.json updated');
  } else {
  const api = await startApi({ ...config, ports: { ...config.ports, api: 0 } });
  const base = `http://127.0.0.1:${api.port}`;
  const ws = await api.infra.container.resolve(CreateWorkspace).execute({ name: 'bench' });
  const key = ws.testKey;
  const signedGet = async (path: string) => {
    const res = await fetch(base + path, { headers: authHeaders(key.keyId, { secret: key.secret, method: 'GET', path }) });
    await res.arrayBuffer();
    return res.status;
  };
  await load('warm-up GET /v2/chains', 200, 10, (i) => signedGet(`/v2/chains?w=${i}`));
  await load('signed GET /v2/chains (auth + admission + route)', 3000, 20, (i) => signedGet(`/v2/chains?i=${i}`));
  await load('signed GET /v2/api-keys (auth + a paged query)', 1500, 20, (i) => signedGet(`/v2/api-keys?limit=5&i=${i}`));
  const idempotentPost = async (path: string, payload: object, idempotencyKey: string) => {
    const body = JSON.stringify(payload);
    const res = await fetch(base + path, {
      method: 'POST',
      body,
      headers: {
        ...authHeaders(key.keyId, { secret: key.secret, method: 'POST', path, body }),
        'Content-Type': 'application/json',
        'Idempotency-Key': idempotencyKey,
      },
    });
    await res.arrayBuffer();
    return res.status;
  };
  await load('idempotent POST /v2/wallets (lock, allocate index, derive, record)', 500, 10, (i) =>
    idempotentPost(`/v2/wallets?i=${i}`, { chain: i % 2 ? 'ETH' : 'TRON', asset: i % 2 ? 'USDT_ETH' : 'USDT_TRON' }, `bench-wallet-${i}`),
  );
  await load('idempotent POST /v2/customers (lock, insert, record)', 500, 10, (i) =>
    idempotentPost(`/v2/customers?i=${i}`, { external_ref: `bench-${i}`, metadata: { tier: 'gold' } }, `bench-${i}`),
  );
  await api.close();
  const webhookRows = await benchWebhooks(config, (line) => console.log(line));
  const say = (line: string) => console.log(line);
  const depositRows = [
    ...(await benchDetection(config, say, { confirmations: 1000, offset: 0, latency: false })),
    ...(await benchDetection(config, say, { confirmations: 2, offset: 1_000_000, latency: true })),
    ...(await benchAddressLookup(config, say)),
    ...(await benchSweeps(config, SEED, say)),
    ...(await benchTronSweeps(config, SEED, say)),
    ...(await benchWithdrawals(config, env, SEED, say)),
    ...(await benchReads(config, env, say)),
  ];
  writeFileSync(
    new URL('./results.json', import.meta.url),
    `${JSON.stringify({ measured_at: new Date().toISOString(), machine: { cpus: cpus().length, node: process.version }, rows: [...webhookRows, ...depositRows] }, null, 2)}\n`,
  );
  console.log('bench/results.json written');
  }
} finally {
  await db.stop();
}
