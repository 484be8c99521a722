// The lists at scale (issue 35, ADR 0036) over real HTTP and PostgreSQL: every
// page a list serves, merged from one ordered read per network, is the page a
// plain ORDER BY over all the workspace's rows gives (ties in time included),
// and every `total`, read from the trigger-kept counters, equals count(*) of
// the matching rows: after bulk inserts, updates that move rows between
// statuses (one statement for many rows, and row by row), deletes, a
// truncate, folds of the counters, and folds racing writers.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { ListCounters } from '../../src/domain/ports.js';
import { uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'list-totals' });
let db: pg.Pool;
const q = async <T extends object>(text: string, params: unknown[] = []): Promise<T[]> => (await db.query(text, params)).rows as T[];
const get = (path: string) => uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', path);
const fold = () => t.api.infra.container.resolve<ListCounters>(TOKENS.ListCounters).fold();

const NETWORKS = ['ETH_TESTNET', 'BSC_TESTNET', 'TRON_TESTNET'] as const;
const STATUSES = ['DETECTED', 'CONFIRMED', 'SWEPT', 'FLAGGED'] as const;
let wallets: { id: string; network: string }[] = [];
let customerId: string;

/** `count` deposits of the workspace spread over the networks, statuses and a few wallets, three to a timestamp. */
async function insertDeposits(count: number, from: number): Promise<void> {
  await q(
    `insert into deposits (id, workspace_id, wallet_id, customer_id, network, asset, txid, log_index, from_address, to_address, chain_amount, amount,
       block_number, block_hash, status, confirmations, required_confirmations, detected_at, created_at, updated_at)
     select gen_random_uuid(), $1, w.id, case when i % 5 = 0 then $2::uuid end, w.network, w.asset, md5('t' || i), 0, 'x', w.address, 1, 1,
            i, '0x00', ($3::text[])[1 + i % 4], 1, 2, ts, ts, ts
       from generate_series($4::int, $5::int - 1) i
       cross join lateral (select timestamptz '2026-11-01' + ((i / 3) || ' seconds')::interval as ts) t
       join lateral (select * from wallets where workspace_id = $1 order by created_at, id offset (i % 6) limit 1) w on true`,
    [t.ws.workspaceId, customerId, [...STATUSES], from, from + count],
  );
}

const chainOf: Record<string, string> = { ETH_TESTNET: 'ETH', BSC_TESTNET: 'BSC', TRON_TESTNET: 'TRON' };

/** What a plain ORDER BY gives for the deposits list with `filter`, and its count. */
async function naiveDeposits(filter: { status?: string; network?: string; wallet?: string; customer?: string }, limit: number, page: number) {
  const where = ['workspace_id = $1', 'network = any($2::text[])'];
  const params: unknown[] = [t.ws.workspaceId, filter.network ? [filter.network] : [...NETWORKS]];
  if (filter.status) where.push(`status = $${params.push(filter.status)}`);
  if (filter.wallet) where.push(`wallet_id = $${params.push(filter.wallet)}`);
  if (filter.customer) where.push(`customer_id = $${params.push(filter.customer)}`);
  const ids = await q<{ id: string }>(`select id from deposits where ${where.join(' and ')} order by created_at desc, id desc limit ${limit} offset ${(page - 1) * limit}`, params);
  const [count] = await q<{ n: string }>(`select count(*)::text as n from deposits where ${where.join(' and ')}`, params);
  return { ids: ids.map((r) => r.id), total: Number(count!.n) };
}

const queryOf = (filter: { status?: string; network?: string; wallet?: string; customer?: string }) =>
  [
    filter.status && `status=${filter.status}`,
    filter.network && `chain=${chainOf[filter.network]}`,
    filter.wallet && `wallet_id=${filter.wallet}`,
    filter.customer && `customer_id=${filter.customer}`,
  ]
    .filter(Boolean)
    .join('&');

async function expectDepositListsExact(): Promise<void> {
  const filters = [{}, { status: 'CONFIRMED' }, { network: 'BSC_TESTNET' }, { network: 'TRON_TESTNET', status: 'SWEPT' }, { wallet: wallets[1]!.id }, { customer: customerId }];
  for (const filter of filters) {
    for (const page of [1, 2, 7, 40]) {
      const res = await get(`/v2/transactions/deposits?limit=7&page=${page}&${queryOf(filter)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const naive = await naiveDeposits(filter, 7, page);
      expect({ filter, page, ids: (res.body.data as { id: string }[]).map((d) => d.id), total: res.body.total }).toEqual({ filter, page, ids: naive.ids, total: naive.total });
    }
  }
}

/** Every counted group's sum equals count(*) of its rows: no group missing, none extra. */
async function expectCountersExact(): Promise<void> {
  const checks = [
    { list: 'deposits', sql: `select workspace_id as owner, network, status, '' as asset, count(*) as n from deposits group by 1, 2, 3` },
    { list: 'withdrawals', sql: `select workspace_id as owner, network, status, '' as asset, count(*) as n from withdrawals group by 1, 2, 3` },
    { list: 'wallets', sql: `select workspace_id as owner, network, status, asset, count(*) as n from wallets group by 1, 2, 3, 4` },
    { list: 'customers', sql: `select workspace_id as owner, side::text as network, status, '' as asset, count(*) as n from customers group by 1, 2, 3` },
    { list: 'webhook_deliveries', sql: `select endpoint_id as owner, '' as network, status, '' as asset, count(*) as n from webhook_deliveries group by 1, 2, 3` },
  ];
  for (const c of checks) {
    const truth = await q<{ k: string; n: string }>(`select owner || '/' || network || '/' || status || '/' || asset as k, n::text from (${c.sql}) x order by 1`);
    const counted = await q<{ k: string; n: string }>(
      `select owner || '/' || network || '/' || status || '/' || asset as k, sum(n)::text as n from list_counts where list = $1 group by 1 having sum(n) <> 0 order by 1`,
      [c.list],
    );
    expect({ list: c.list, groups: counted }).toEqual({ list: c.list, groups: truth });
  }
}

beforeAll(async () => {
  db = new pg.Pool({ connectionString: t.db.url, max: 8 });
  customerId = (await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/customers', { external_ref: 'whale' })).body.id as string;
  for (const chain of ['ETH', 'BSC', 'TRON']) {
    for (let i = 0; i < 2; i++) {
      const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain, asset: `USDT_${chain}` });
      expect(res.status).toBe(201);
    }
  }
  wallets = await q<{ id: string; network: string }>(`select id, network from wallets where workspace_id = $1 order by created_at, id`, [t.ws.workspaceId]);
  await insertDeposits(600, 0);
});

afterAll(async () => {
  await db?.end();
});

describe('list pages and totals', () => {
  it('serves each page of each deposit filter exactly as a plain ORDER BY over every row, with total = count(*)', async () => {
    await expectDepositListsExact();
    await expectCountersExact();
  });

  it('keeps the totals exact through status moves, deletes and folds of the counters', async () => {
    await q(`update deposits set status = 'SWEPT' where workspace_id = $1 and status = 'CONFIRMED' and block_number % 2 = 0`, [t.ws.workspaceId]);
    const few = await q<{ id: string }>(`select id from deposits where workspace_id = $1 and status = 'DETECTED' limit 5`, [t.ws.workspaceId]);
    for (const d of few) await q(`update deposits set status = 'CONFIRMED', confirmations = 2 where id = $1`, [d.id]);
    // An update that moves no row between groups adds no delta.
    const before = (await q<{ n: string }>(`select count(*)::text as n from list_counts`))[0]!.n;
    await q(`update deposits set confirmations = confirmations + 1 where workspace_id = $1`, [t.ws.workspaceId]);
    expect((await q<{ n: string }>(`select count(*)::text as n from list_counts`))[0]!.n).toBe(before);
    await q(`delete from deposits where workspace_id = $1 and block_number between 100 and 130`, [t.ws.workspaceId]);
    await expectDepositListsExact();
    await expectCountersExact();

    expect(await fold()).toBeGreaterThan(0);
    const dupes = await q(`select list, owner, network, status, asset from list_counts group by 1, 2, 3, 4, 5 having count(*) > 1`);
    expect(dupes).toEqual([]);
    expect(await fold()).toBe(0);
    await expectDepositListsExact();
    await expectCountersExact();
  });

  it('keeps the totals exact while folds race writers on several connections', async () => {
    const writers = Array.from({ length: 12 }, (_, i) => insertDeposits(25, 10_000 + i * 25));
    const moves = Array.from({ length: 6 }, (_, i) =>
      q(`update deposits set status = 'FLAGGED' where workspace_id = $1 and status = 'DETECTED' and block_number % 6 = $2`, [t.ws.workspaceId, i]),
    );
    const folds = Array.from({ length: 4 }, () => fold());
    await Promise.all([...writers, ...moves, ...folds]);
    await expectCountersExact();
    await fold();
    await expectCountersExact();
    await expectDepositListsExact();
  });

  it('counts wallets (ARCHIVED hidden unless asked, by asset), customers, withdrawals and GET /v2/transactions exactly', async () => {
    await q(`update wallets set status = 'ARCHIVED' where id = $1`, [wallets[0]!.id]);
    await q(
      `insert into withdrawals (id, workspace_id, network, asset, amount, fee, net_amount, destination, status, requested_at, updated_at)
       select gen_random_uuid(), $1, ($2::text[])[1 + i % 3], 'USDT_ETH', 1, 0, 1, 'x', case when i % 4 = 0 then 'CONFIRMED' else 'PENDING' end,
              timestamptz '2026-11-01' + ((i / 2) || ' seconds')::interval, now()
         from generate_series(1, 50) i`,
      [t.ws.workspaceId, [...NETWORKS]],
    );
    await q(`update customers set status = 'ARCHIVED' where id = $1`, [customerId]);
    await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/customers', { external_ref: 'minnow' });
    await expectCountersExact();

    const total = async (path: string) => {
      const res = await get(path);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.total as number;
    };
    const count = async (sql: string) => Number((await q<{ n: string }>(sql, [t.ws.workspaceId]))[0]!.n);
    expect(await total('/v2/wallets')).toBe(await count(`select count(*)::text as n from wallets where workspace_id = $1 and network like '%_TESTNET' and status <> 'ARCHIVED'`));
    expect(await total('/v2/wallets?status=ARCHIVED')).toBe(1);
    expect(await total('/v2/wallets?asset=USDT_BSC')).toBe(2);
    expect(await total('/v2/customers')).toBe(2);
    expect(await total('/v2/customers?status=ARCHIVED')).toBe(1);
    expect(await total('/v2/customers?external_ref=minnow')).toBe(1);
    expect(await total('/v2/transactions/withdrawals')).toBe(50);
    expect(await total('/v2/transactions/withdrawals?status=CONFIRMED&chain=BSC')).toBe(await count(`select count(*)::text as n from withdrawals where workspace_id = $1 and status = 'CONFIRMED' and network = 'BSC_TESTNET'`));
    const deposits = await count(`select count(*)::text as n from deposits where workspace_id = $1`);
    expect(await total('/v2/transactions')).toBe(deposits + 50);

    // GET /v2/transactions merges both tables' per-network reads in the order of a plain UNION ALL.
    for (const page of [1, 3, 30]) {
      const res = await get(`/v2/transactions?limit=9&page=${page}`);
      const naive = await q<{ id: string }>(
        `select id from (select id, created_at as at from deposits where workspace_id = $1 union all select id, requested_at from withdrawals where workspace_id = $1) f
          order by at desc, id desc limit 9 offset ${(page - 1) * 9}`,
        [t.ws.workspaceId],
      );
      expect((res.body.data as { id: string }[]).map((r) => r.id)).toEqual(naive.map((r) => r.id));
    }
  });

  it('counts a webhook endpoint’s deliveries by status as they move', async () => {
    const endpoint = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/webhooks', { url: 'https://93.184.216.34/hooks', events: ['DEPOSIT_CONFIRMED'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const id = endpoint.body.id as string;
    await q(
      `with ev as (
         insert into webhook_events (id, workspace_id, side, event, payload, created_at)
         select gen_random_uuid(), $1, 'test', 'DEPOSIT_CONFIRMED', '{}', timestamptz '2026-11-01' + (i || ' seconds')::interval from generate_series(1, 40) i returning id, created_at)
       insert into webhook_deliveries (id, endpoint_id, event, status, payload, attempts, created_at, event_id)
       select gen_random_uuid(), $2, 'DEPOSIT_CONFIRMED', 'PENDING', '{}', 0, created_at, id from ev`,
      [t.ws.workspaceId, id],
    );
    await q(`update webhook_deliveries set status = 'DELIVERED' where endpoint_id = $1 and created_at <= timestamptz '2026-11-01 00:00:10+00'`, [id]);
    await expectCountersExact();
    const totalOf = async (query: string) => (await get(`/v2/webhooks/${id}/deliveries${query}`)).body.total as number;
    expect([await totalOf(''), await totalOf('?status=PENDING'), await totalOf('?status=DELIVERED'), await totalOf('?status=FAILED')]).toEqual([40, 30, 10, 0]);
  });

  it('forgets a truncated table’s counts, even while a fold runs, and refuses a truncate under an older snapshot', async () => {
    const refused = await db.connect();
    try {
      await refused.query('begin isolation level repeatable read');
      await expect(refused.query('truncate withdrawals cascade')).rejects.toThrow(/READ COMMITTED/);
    } finally {
      await refused.query('rollback');
      refused.release();
    }
    await Promise.all([q(`truncate withdrawals cascade`), fold(), fold()]);
    await fold();
    expect(await q(`select * from list_counts where list = 'withdrawals'`)).toEqual([]);
    await expectCountersExact();
    const res = await get('/v2/transactions/withdrawals');
    expect(res.body.total).toBe(0);
    await q(
      `insert into withdrawals (id, workspace_id, network, asset, amount, fee, net_amount, destination, status, requested_at, updated_at)
       values ($1, $2, 'ETH_TESTNET', 'USDT_ETH', 1, 0, 1, 'x', 'PENDING', now(), now())`,
      [randomUUID(), t.ws.workspaceId],
    );
    expect((await get('/v2/transactions/withdrawals')).body.total).toBe(1);
  });
});
