// The cost curve of `npm run bench` (issues 18 and 35): the same requests against the
// api process with 1×, 10×, 100× and 1,000× the data in the database (wallets,
// deposits, ledger entries, spread as a busy workspace has them), each row at
// 10×, 100× and 1,000× next to the same row at 1× in the same run: a ratio near 1 is a
// path that stays flat as the data grows. At 1×, wallet creation stands next
// to a bare express route doing the least it must (bench/bare-server.ts: the
// key read, the replay insert, the libraries deriving the address, one insert).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { freePort } from '../src/adapters/sandbox/local-ports.js';
import { TOKENS } from '../src/application/tokens.js';
import { CreateWorkspace } from '../src/application/workspaces/create-workspace.js';
import { startApi } from '../src/bootstrap/api.js';
import type { Config } from '../src/bootstrap/config.js';
import { creditDeposit } from '../src/domain/ledger/entries.js';
import { Amount } from '../src/domain/money/amount.js';
import type { UnitOfWork } from '../src/domain/ports.js';
import { SERVICE_OWNER } from '../src/domain/ledger/journal.js';
import { authHeaders } from '../src/sdk/signing.js';
import type { BenchRow } from './webhooks.js';
import { run, startProcess } from './withdrawals.js';

/** The data at 1×; 10× and 100× multiply it. */
const BASE = { wallets: 1_000, deposits: 1_000, entries: 2_000 };
const READS = 1000;
const WRITES = 300;
const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

type Measure = Awaited<ReturnType<typeof run>>;

/** Grows the synthetic data of `workspaceId` to `factor` × BASE (rows on BSC_TESTNET, which the measured requests do not create). */
async function grow(db: pg.Client, workspaceId: string, factor: number): Promise<void> {
  const have = Number((await db.query<{ n: string }>(`select count(*) as n from wallets where workspace_id = $1 and network = 'BSC_TESTNET'`, [workspaceId])).rows[0]!.n);
  const wallets = BASE.wallets * factor;
  const { rows: acc } = await db.query<{ account: number }>(
    `insert into hd_accounts (workspace_id, network, next_index) values ($1, 'BSC_TESTNET', $2)
     on conflict (workspace_id, network) do update set next_index = excluded.next_index returning account`,
    [workspaceId, wallets],
  );
  const account = acc[0]!.account;
  await db.query(
    `insert into wallets (id, workspace_id, network, asset, address, derivation_account, derivation_index, status, created_at)
     select gen_random_uuid(), $1, 'BSC_TESTNET', 'USDT_BSC', '0x' || substr(md5('w' || i), 1, 20) || substr(md5('x' || i), 1, 20), $2, i, 'ACTIVE', now() - (i || ' seconds')::interval
       from generate_series($3::int, $4::int - 1) i`,
    [workspaceId, account, have, wallets],
  );
  const deposits = BASE.deposits * factor;
  await db.query(
    `insert into deposits (id, workspace_id, wallet_id, network, asset, txid, log_index, from_address, to_address, chain_amount, amount, block_number, block_hash,
                           status, confirmations, required_confirmations, fee_amount, net_amount, detected_at, confirmed_at, swept_at, created_at, updated_at)
     select gen_random_uuid(), $1, w.id, 'BSC_TESTNET', 'USDT_BSC', '0x' || md5('d' || w.derivation_index) || md5('e' || w.derivation_index), 0, '0x' || repeat('1', 40), w.address,
            1000000000000000000, 1000000, w.derivation_index, '0x' || md5('b' || w.derivation_index) || md5('c' || w.derivation_index),
            'SWEPT', 12, 12, 10000, 990000, w.created_at, w.created_at, w.created_at, w.created_at, w.created_at
       from wallets w
      where w.workspace_id = $1 and w.network = 'BSC_TESTNET' and w.derivation_account = $2 and w.derivation_index >= $3 and w.derivation_index < $4`,
    [workspaceId, account, have, deposits],
  );
  const haveEntries = Number((await db.query<{ n: string }>(`select count(*) as n from journal_entries where reference like 'scale:%'`)).rows[0]!.n);
  const entries = BASE.entries * factor;
  const ids = await db.query<{ id: number; kind: string }>(
    `insert into ledger_accounts (owner, kind, network, asset) values ($1, 'AVAILABLE', 'BSC_TESTNET', 'USDT_BSC'), ($2, 'TREASURY', 'BSC_TESTNET', 'USDT_BSC')
     on conflict (owner, kind, network, asset) do update set asset = excluded.asset returning id, kind`,
    [workspaceId, SERVICE_OWNER],
  );
  const available = ids.rows.find((r) => r.kind === 'AVAILABLE')!.id;
  const treasury = ids.rows.find((r) => r.kind === 'TREASURY')!.id;
  await db.query(
    `with e as (
       insert into journal_entries (id, kind, reference, workspace_id, network, asset, created_at)
       select gen_random_uuid(), 'DEPOSIT_CREDIT', 'scale:' || i, $1, 'BSC_TESTNET', 'USDT_BSC', now() - (i || ' seconds')::interval
         from generate_series($2::int, $3::int - 1) i
       returning id)
     insert into postings (entry_id, account_id, amount)
     select id, a.account, a.amount from e cross join (values ($4::int, 1000000::numeric), ($5::int, -1000000::numeric)) as a(account, amount)`,
    [workspaceId, haveEntries, entries, available, treasury],
  );
  // Vacuumed, not only analyzed: the bulk insert leaves work autovacuum would otherwise do during the
  // measurement (and index-only reads need the visibility map); then a checkpoint, for the same reason.
  for (const table of ['wallets', 'deposits', 'journal_entries', 'postings', 'list_counts']) await db.query(`vacuum analyze ${table}`);
  await db.query('checkpoint').catch(() => undefined); // a role without pg_checkpoint skips it
}

export async function benchScale(config: Config, env: Record<string, string>, seed: string, log: (line: string) => void): Promise<BenchRow[]> {
  const setup = await startApi({ ...config, ports: { ...config.ports, api: 0 } });
  const db = new pg.Client({ connectionString: env.DATABASE_URL });
  await db.connect();
  const stops: (() => Promise<void>)[] = [];
  try {
    const ws = await setup.infra.container.resolve(CreateWorkspace).execute({ name: 'scale-bench' });
    await setup.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
      tx.ledger.post(
        creditDeposit({ id: randomUUID(), network: 'ETH_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: ws.workspaceId, gross: Amount.parse('100000000', 'USDT_ETH'), fee: Amount.zero('USDT_ETH') }),
      ),
    );
    const key = ws.testKey;
    const apiPort = await freePort();
    const api = await startProcess('src/bootstrap/api.ts', { ...env, LOG_LEVEL: 'info', PORT: String(apiPort) }, /api listening/);
    stops.push(api.stop);
    const base = `http://127.0.0.1:${apiPort}`;
    const told = new Set<string>();
    const send = async (method: 'GET' | 'POST', path: string, ok: number, payload?: object) => {
      const body = payload ? JSON.stringify(payload) : '';
      const res = await fetch(base + path, {
        method,
        body: payload ? body : undefined,
        headers: {
          ...authHeaders(key.keyId, { secret: key.secret, method, path, body }),
          ...(payload ? { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() } : {}),
        },
      });
      const text = await res.text();
      if (res.status !== ok && !told.has(path.split('?')[0]!)) {
        told.add(path.split('?')[0]!);
        log(`  ${method} ${path}: ${res.status} ${text.slice(0, 300)} (the first failure of this path)`);
      }
      return res.status === ok;
    };
    const barePort = await freePort();
    const bare = await startProcess('bench/bare-server.ts', { DATABASE_URL: env.DATABASE_URL!, PORT: String(barePort), BARE_SEED: seed }, /bare listening/);
    stops.push(bare.stop);
    const bareWallet = async () => {
      const res = await fetch(`http://127.0.0.1:${barePort}/bare-wallet`, { method: 'POST', headers: { 'X-Service-Key': key.keyId, 'X-Service-Signature': randomUUID() } });
      await res.arrayBuffer();
      return res.status === 201;
    };
    await run(200, () => bareWallet());
    await run(200, (i) => send('GET', `/v2/balances?warm=${i}`, 200));
    await run(100, (i) => send('POST', `/v2/wallets?warm=${i}`, 201, { chain: 'ETH', asset: 'USDT_ETH' }));

    const paths = {
      balances: { name: 'signed GET /v2/balances', one: (i: number) => send('GET', `/v2/balances?i=${i}`, 200), total: READS },
      deposits: { name: 'signed GET /v2/transactions/deposits?limit=20 (first page)', one: (i: number) => send('GET', `/v2/transactions/deposits?limit=20&i=${i}`, 200), total: READS },
      depositsLater: { name: 'signed GET /v2/transactions/deposits?limit=20&page=50 (a later page)', one: (i: number) => send('GET', `/v2/transactions/deposits?limit=20&page=50&i=${i}`, 200), total: READS },
      depositsStatus: { name: 'signed GET /v2/transactions/deposits?status=SWEPT&chain=BSC (first page)', one: (i: number) => send('GET', `/v2/transactions/deposits?status=SWEPT&chain=BSC&i=${i}`, 200), total: READS },
      walletList: { name: 'signed GET /v2/wallets (first page)', one: (i: number) => send('GET', `/v2/wallets?i=${i}`, 200), total: READS },
      transactions: { name: 'signed GET /v2/transactions (first page)', one: (i: number) => send('GET', `/v2/transactions?i=${i}`, 200), total: READS },
      withdrawalList: { name: 'signed GET /v2/transactions/withdrawals (first page)', one: (i: number) => send('GET', `/v2/transactions/withdrawals?i=${i}`, 200), total: READS },
      wallets: { name: 'signed POST /v2/wallets (USDT_ETH: allocate an index, derive, insert)', one: (i: number) => send('POST', `/v2/wallets?i=${i}`, 201, { chain: 'ETH', asset: 'USDT_ETH' }), total: WRITES },
      withdrawals: { name: 'signed POST /v2/withdrawals', one: (i: number) => send('POST', `/v2/withdrawals?i=${i}`, 201, { chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: DESTINATION }), total: WRITES },
    } as const;
    // Every path once before the 1× figures, so that none of them measures a cold process.
    for (const p of Object.values(paths)) if (!p.name.includes('POST')) await run(100, (i) => p.one(-1 - i));
    const at = new Map<string, Measure>();
    const rows: BenchRow[] = [];
    // BENCH_SCALE_FACTORS=1 (or 1,10): fewer growth steps while working on one path; npm run bench runs all four.
    const factors = (process.env.BENCH_SCALE_FACTORS ?? '1,10,100,1000').split(',').map(Number);
    const unknown = factors.filter((f) => ![1, 10, 100, 1000].includes(f));
    if (unknown.length) throw new Error(`BENCH_SCALE_FACTORS: ${unknown.join(', ')} is not one of 1, 10, 100, 1000`);
    // Growing only: 1× first (the later steps compare with it), each step once.
    for (const factor of [...new Set([1, ...factors])].sort((a, b) => a - b)) {
      const started = performance.now();
      await grow(db, ws.workspaceId, factor);
      const counts = (await db.query<{ w: string; d: string; e: string }>(`select (select count(*) from wallets) as w, (select count(*) from deposits) as d, (select count(*) from journal_entries) as e`)).rows[0]!;
      log(`cost curve ${factor}×: ${counts.w} wallets, ${counts.d} deposits, ${counts.e} ledger entries (grown in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
      if (factor === 1) {
        const baseline = await run(WRITES, () => bareWallet());
        at.set('bare-wallet', baseline);
        log(`  bare wallet route (key read, replay insert, derive, insert): ${baseline.perSecond.toFixed(0)} req/s, p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms`);
      }
      for (const [id, p] of Object.entries(paths)) {
        const m = await run(p.total, (i) => p.one(i));
        log(`  ${p.name}: ${m.perSecond.toFixed(0)} req/s, p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms (${m.failed} not ok)`);
        if (factor === 1) {
          at.set(id, m);
          if (id === 'wallets') {
            const b = at.get('bare-wallet')!;
            rows.push({
              name: `${p.name}, concurrency 20: wallets created per second`,
              value: Math.round(m.perSecond),
              unit: 'wallets/s',
              baseline: { name: 'a bare express route, its own process: key read, replay insert, @scure/bip32 + viem derivation, one insert; same concurrency', value: Math.round(b.perSecond) },
              ratio: Number((m.perSecond / b.perSecond).toFixed(2)),
              goal: 'ratio >= 0.5',
            });
          }
          continue;
        }
        const one = at.get(id)!;
        const data = `${BASE.wallets * factor} wallets, ${BASE.deposits * factor} deposits, ${BASE.entries * factor} entries`;
        rows.push(
          { name: `cost curve ${factor}× (${data}): ${p.name}`, value: Math.round(m.perSecond), unit: 'req/s', baseline: { name: 'the same at 1× in this run', value: Math.round(one.perSecond) }, ratio: Number((m.perSecond / one.perSecond).toFixed(2)), goal: 'flat (ratio near 1)' },
          { name: `cost curve ${factor}× (${data}): ${p.name} p99`, value: Number(m.p99.toFixed(1)), unit: 'ms', baseline: { name: 'the same at 1× in this run', value: Number(one.p99.toFixed(1)) }, ratio: Number((m.p99 / one.p99).toFixed(2)) },
        );
      }
    }
    return rows;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await db.end();
    await setup.close();
  }
}
