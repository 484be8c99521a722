// `npm run bench`: figures for the hot paths, each next to a baseline
// measured in the same run on the same machine (a bare route, a raw query,
// raw viem or tronweb, raw pg-boss, the libraries alone) with their ratio,
// against an embedded PostgreSQL (or the server of DATABASE_URL). Each group
// runs on a fresh database of its own, so one group's data never slows the
// next. Prints one line per measurement and writes bench/results.json.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import pg from 'pg';
import { startTemporaryPostgres } from '../src/adapters/sandbox/embedded-postgres.js';
import { parseConfig, type Config } from '../src/bootstrap/config.js';
import { prepareDatabase } from '../src/bootstrap/prepare-database.js';
import { benchDerivation } from './derivation.js';
import { benchAddressLookup, benchDetection } from './deposits.js';
import { benchReads } from './reads.js';
import { benchScale } from './scale.js';
import { benchSweeps } from './sweeps.js';
import { benchTronSweeps } from './tron-sweeps.js';
import type { BenchRow } from './webhooks.js';
import { benchWebhooks } from './webhooks.js';
import { benchWithdrawals } from './withdrawals.js';

const SEED = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** The PostgreSQL server of the run: DATABASE_URL's, or an embedded one in a temporary directory. */
async function databaseServer(): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { adminUrl: process.env.DATABASE_URL, stop: async () => {} };
  const server = await startTemporaryPostgres({ port: 20000 + Math.floor(Math.random() * 20000), prefix: 'wallet-bench-' });
  return { adminUrl: server.url, stop: server.stop };
}

interface Fresh {
  config: Config;
  env: Record<string, string>;
}

type Group = (f: Fresh, say: (line: string) => void) => Promise<BenchRow[]>;

/** The groups in the order of a full run; `npm run bench -- NAME` runs one. */
const GROUPS: Record<string, Group> = {
  derivation: () => benchDerivation(),
  webhooks: ({ config }, say) => benchWebhooks(config, say),
  deposits: async ({ config }, say) => [
    ...(await benchDetection(config, say, { confirmations: 1000, offset: 0, latency: false })),
    ...(await benchDetection(config, say, { confirmations: 2, offset: 1_000_000, latency: true })),
    ...(await benchAddressLookup(config, say, only === 'deposits' ? 1_000_000 : 100_000)),
  ],
  /** Detection alone and while crediting (part of `deposits`, without the address lookup's million wallets). */
  detection: async ({ config }, say) => [
    ...(await benchDetection(config, say, { confirmations: 1000, offset: 0, latency: false })),
    ...(await benchDetection(config, say, { confirmations: 2, offset: 1_000_000, latency: true })),
  ],
  /** EVM and TRON. */
  sweeps: async ({ config }, say) => [...(await benchSweeps(config, SEED, say)), ...(await benchTronSweeps(config, SEED, say))],
  'tron-sweeps': ({ config }, say) => benchTronSweeps(config, SEED, say),
  withdrawals: ({ config, env }, say) => benchWithdrawals(config, env, SEED, say),
  reads: ({ config, env }, say) => benchReads(config, env, say),
  scale: ({ config, env }, say) => benchScale(config, env, SEED, say),
};
const FULL_RUN = ['derivation', 'webhooks', 'deposits', 'sweeps', 'withdrawals', 'reads', 'scale'];

const only = process.argv[2];
if (only !== undefined && !(only in GROUPS)) {
  console.error(`unknown group ${only}; one of ${Object.keys(GROUPS).join(', ')}, or none for all`);
  process.exit(2);
}
const started = performance.now();
const server = await databaseServer();
const say = (line: string) => console.log(line);
const rows: BenchRow[] = [];
try {
  for (const name of only ? [only] : FULL_RUN) {
    const database = `bench_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`create database ${database}`);
    await admin.end();
    const u = new URL(server.adminUrl);
    u.pathname = `/${database}`;
    await prepareDatabase(u.toString());
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: u.toString(),
      SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      MASTER_SEED: SEED,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      // The webhook group's receiver runs on this machine.
      WEBHOOK_ALLOW_PRIVATE: 'loopback',
    };
    const groupStarted = performance.now();
    rows.push(...(await GROUPS[name]!({ config: parseConfig(env), env }, say)));
    say(`(${name}: ${((performance.now() - groupStarted) / 1000).toFixed(0)} s)`);
  }
} finally {
  await server.stop();
}
const file = new URL('./results.json', import.meta.url);
// One group replaces its own rows and keeps the others; a full run writes them all.
const kept = only ? (JSON.parse(readFileSync(file, 'utf8')) as { rows: BenchRow[] }).rows.filter((r) => !rows.some((n) => n.name === r.name)) : [];
writeFileSync(file, `${JSON.stringify({ measured_at: new Date().toISOString(), machine: { cpus: cpus().length, node: process.version }, rows: [...kept, ...rows] }, null, 2)}\n`);
say('');
say('| row | value | baseline | ratio |');
say('|---|---|---|---|');
for (const r of rows) say(`| ${r.name} | ${r.value} ${r.unit} | ${r.baseline.value} (${r.baseline.name}) | ${r.ratio} |`);
say(`bench/results.json ${only ? 'updated' : 'written'}; ${only ?? 'the whole bench'} took ${((performance.now() - started) / 60_000).toFixed(1)} minutes`);
