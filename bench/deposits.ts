// Deposit figures for `npm run bench`, each next to a baseline from the same
// run on the same machine:
// - the monitored-address lookup as wallets grow from 1,000 to 1,000,000
//   (goal: flat), with the memory the set takes and how long loading it
//   takes, next to a bare JS Set of 1,000 keys;
// - detection throughput on a local anvil: 10,000 token transfers to 1,000
//   monitored addresses over 500 blocks, from block to DETECTED row, next to
//   viem alone reading the same logs from the same node (goal: at least half);
// - latency from a block being mined to DEPOSIT_DETECTED committed, p50 and
//   p99 (goal: p99 under 500 ms), next to the same node's eth_blockNumber
//   round trip polled at the same interval.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../src/bootstrap/config.js';
import { openOrm } from '../src/adapters/persistence/orm.js';
import { PgMonitoredAddresses } from '../src/adapters/persistence/monitored-addresses.js';
import type { BenchRow } from './webhooks.js';

const gc = (globalThis as { gc?: () => void }).gc;

function heapMb(): number {
  gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** Nanoseconds per lookup over `keys`, half of them monitored. */
function timeLookups(has: (k: string) => boolean, keys: string[]): number {
  let hits = 0;
  for (let r = 0; r < 3; r++) for (const k of keys) if (has(k)) hits++; // warm-up
  const rounds = 10;
  const t = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) for (const k of keys) if (has(k)) hits++;
  const ns = Number(process.hrtime.bigint() - t) / (rounds * keys.length);
  if (hits < 0) console.log(hits);
  return ns;
}

const hexKey = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;

/** Inserts wallets 0..n-1 of a bench workspace on ETH_TESTNET (addresses are keys only: never used on chain). */
async function growWallets(client: pg.Client, from: number, to: number, workspaceId: string, account: number): Promise<void> {
  await client.query(
    `insert into wallets (id, workspace_id, network, asset, address, derivation_account, derivation_index, status, created_at)
     select gen_random_uuid(), $1, 'ETH_TESTNET', 'USDT_ETH', '0x' || lpad(to_hex(i), 40, '0'), $2, i, 'ACTIVE', now() - interval '1 hour'
     from generate_series($3::int, $4::int - 1) as i`,
    [workspaceId, account, from, to],
  );
}

export async function benchAddressLookup(config: Config, log: (line: string) => void): Promise<BenchRow[]> {
  const client = new pg.Client({ connectionString: config.databaseUrl });
  await client.connect();
  const workspaceId = randomUUID();
  await client.query(`insert into workspaces (id, name, status, created_at, updated_at) values ($1, 'lookup-bench', 'ACTIVE', now(), now())`, [workspaceId]);
  const { rows } = await client.query<{ account: number }>(
    `insert into hd_accounts (workspace_id, network, next_index) values ($1, 'ETH_TESTNET', 0) returning account`,
    [workspaceId],
  );
  const account = rows[0]!.account;
  const orm = await openOrm({ databaseUrl: config.databaseUrl! });
  const probe = Array.from({ length: 20_000 }, (_, i) => hexKey(i % 2 ? i * 7 : 10_000_000 + i)); // half hits at 1k+, half misses

  // Baseline: a bare Set of 1,000 keys, same probes.
  const bare = new Set(Array.from({ length: 1000 }, (_, i) => hexKey(i)));
  const baselineNs = timeLookups((k) => bare.has(k), probe);
  log(`address lookup baseline: bare Set of 1,000 keys: ${baselineNs.toFixed(1)} ns/lookup`);

  const out: BenchRow[] = [];
  let have = 0;
  for (const size of [1_000, 10_000, 100_000, 1_000_000]) {
    await growWallets(client, have, size, workspaceId, account);
    have = size;
    const before = heapMb();
    const index = new PgMonitoredAddresses(orm);
    const t = performance.now();
    await index.refresh('ETH_TESTNET');
    const loadMs = performance.now() - t;
    const memMb = heapMb() - before;
    const ns = timeLookups((k) => index.has('ETH_TESTNET', k), probe);
    log(
      `address lookup with ${size.toLocaleString('en')} monitored wallets: ${ns.toFixed(1)} ns/lookup ` +
        `(${(ns / baselineNs).toFixed(2)}× a bare Set of 1,000), set ${memMb.toFixed(1)} MB of heap, loaded in ${loadMs.toFixed(0)} ms`,
    );
    out.push({
      name: `monitored-address lookup, ${size.toLocaleString('en')} wallets (set ${memMb.toFixed(1)} MB, loaded in ${loadMs.toFixed(0)} ms)`,
      value: Number(ns.toFixed(1)),
      unit: 'ns/lookup',
      baseline: { name: 'bare JS Set of 1,000 keys, same probes', value: Number(baselineNs.toFixed(1)) },
      ratio: Number((ns / baselineNs).toFixed(2)),
      goal: 'flat as wallets grow',
    });
  }
  await client.query(`delete from wallets where workspace_id = $1`, [workspaceId]);
  await client.end();
  await orm.close(true);
  return out;
}
