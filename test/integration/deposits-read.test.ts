// The read API of deposits over real HTTP and PostgreSQL: GET
// /v2/transactions/deposits/{id} (the 2.4 view, 6 or 18 places, fee_record
// null until credited), the list with its filters, pagination and order,
// GET /v2/transactions, and what must not leak or break: another workspace's
// deposit and the other side's are not found (IDOR), a key without
// transactions:read is refused, hostile query input is a VALIDATION_ERROR.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { TOKENS } from '../../src/application/tokens.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { createWorkspace, uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'deposits-read' });
let other: CreatedWorkspace;
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
type Key = { keyId: string; secret: string };
const get = (key: Key, path: string) => uniqueCall(t.api.baseUrl, key, 'GET', path);

let usdtWallet: string;
let ethWallet: string;
let customerId: string;
const ids: Record<string, string> = {};
let n = 0;

async function insertDeposit(name: string, o: { workspaceId: string; walletId: string; customerId?: string | null; network?: string; asset?: string; status: string; amount: string; fee?: [string, string]; at: string }) {
  const id = randomUUID();
  ids[name] = id;
  await sql(
    `insert into deposits (id, workspace_id, wallet_id, customer_id, network, asset, txid, log_index, from_address, to_address, chain_amount, amount,
       block_number, block_hash, status, confirmations, required_confirmations, fee_amount, net_amount, applied_rate_ppm, applied_min_fee,
       detected_at, confirmed_at, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', ?, ?, 10, '0xab', ?, ?, 2, ?, ?, 9000, 3000000, ?, ?, ?, ?)`,
    [
      id, o.workspaceId, o.walletId, o.customerId ?? null, o.network ?? 'ETH_TESTNET', o.asset ?? 'USDT_ETH', `0x${(++n).toString(16).padStart(64, '0')}`,
      o.asset === 'ETH' ? -1 : 0, o.amount, o.amount, o.status, o.status === 'DETECTED' ? 1 : 2, o.fee?.[0] ?? null, o.fee?.[1] ?? null,
      o.at, o.fee ? o.at : null, o.at, o.at,
    ],
  );
}

beforeAll(async () => {
  other = await createWorkspace(t.api, 'someone-else');
  const customer = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/customers', { external_ref: 'alice' });
  customerId = customer.body.id as string;
  usdtWallet = (await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' })).body.id as string;
  ethWallet = (await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'ETH', customer_id: customerId })).body.id as string;
  const theirs = (await uniqueCall(t.api.baseUrl, other.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' })).body.id as string;
  await insertDeposit('detected', { workspaceId: t.ws.workspaceId, walletId: usdtWallet, status: 'DETECTED', amount: '25000000', at: '2026-11-24T00:00:01Z' });
  await insertDeposit('confirmed', { workspaceId: t.ws.workspaceId, walletId: usdtWallet, status: 'CONFIRMED', amount: '100000000', fee: ['3000000', '97000000'], at: '2026-11-24T00:00:02Z' });
  await insertDeposit('native', { workspaceId: t.ws.workspaceId, walletId: ethWallet, customerId, asset: 'ETH', status: 'FLAGGED', amount: '123000000000000000', at: '2026-11-24T00:00:03Z' });
  await insertDeposit('live', { workspaceId: t.ws.workspaceId, walletId: usdtWallet, network: 'ETH_MAINNET', status: 'CONFIRMED', amount: '1000000', fee: ['1000000', '0'], at: '2026-11-24T00:00:04Z' });
  await insertDeposit('theirs', { workspaceId: other.workspaceId, walletId: theirs, status: 'DETECTED', amount: '5000000', at: '2026-11-24T00:00:05Z' });
});

describe('GET /v2/transactions/deposits/{id}', () => {
  it('shows a deposit as documented: amounts with the asset’s places, fee_record once credited', async () => {
    const res = await get(t.ws.testKey, `/v2/transactions/deposits/${ids.confirmed}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: ids.confirmed,
      wallet_id: usdtWallet,
      chain: 'ETH_TESTNET',
      asset: 'USDT_ETH',
      txid: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      amount: '100.000000',
      status: 'CONFIRMED',
      confirmations: 2,
      required_confirmations: 2,
      detected_at: '2026-11-24T00:00:02.000Z',
      confirmed_at: '2026-11-24T00:00:02.000Z',
      swept_at: null,
      fee_record: { fee_amount: '3.000000', net_amount: '97.000000' },
    });
    const native = await get(t.ws.testKey, `/v2/transactions/deposits/${ids.native!.toUpperCase()}`);
    expect(native.body).toMatchObject({ amount: '0.123000000000000000', status: 'FLAGGED', fee_record: null, confirmed_at: null });
  });

  it('does not find another workspace’s deposit, the other side’s, or a malformed id', async () => {
    for (const [key, id] of [
      [t.ws.testKey, ids.theirs],
      [other.testKey, ids.confirmed],
      [t.ws.testKey, ids.live],
      [t.ws.liveKey, ids.confirmed],
      [t.ws.testKey, 'not-a-uuid'],
      [t.ws.testKey, "1' or '1'='1"],
    ] as [Key, string][]) {
      const res = await get(key, `/v2/transactions/deposits/${encodeURIComponent(id)}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    expect((await get(t.ws.liveKey, `/v2/transactions/deposits/${ids.live}`)).status).toBe(200);
  });

  it('needs transactions:read', async () => {
    const created = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/api-keys', { label: 'wallets only', scopes: ['wallets:read'] });
    expect(created.status).toBe(201);
    const narrow = { keyId: created.body.key_id as string, secret: created.body.secret as string };
    for (const path of [`/v2/transactions/deposits/${ids.confirmed}`, '/v2/transactions/deposits', '/v2/transactions']) {
      const res = await get(narrow, path);
      expect(res.status).toBe(403);
    }
  });
});

describe('GET /v2/transactions/deposits', () => {
  it('lists the key’s side newest first, with filters and pagination', async () => {
    const all = await get(t.ws.testKey, '/v2/transactions/deposits');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, page: 1 });
    expect(all.body.data.map((d: { id: string }) => d.id)).toEqual([ids.native, ids.confirmed, ids.detected]);
    const pick = async (q: string) => (await get(t.ws.testKey, `/v2/transactions/deposits?${q}`)).body.data.map((d: { id: string }) => d.id);
    expect(await pick('status=CONFIRMED')).toEqual([ids.confirmed]);
    expect(await pick(`wallet_id=${usdtWallet}`)).toEqual([ids.confirmed, ids.detected]);
    expect(await pick(`customer_id=${customerId}`)).toEqual([ids.native]);
    expect(await pick('chain=ETH')).toHaveLength(3);
    expect(await pick('chain=ETH_MAINNET')).toEqual([]);
    expect(await pick('chain=BSC')).toEqual([]);
    expect(await pick('limit=1&page=2')).toEqual([ids.confirmed]);
    expect((await get(t.ws.liveKey, '/v2/transactions/deposits')).body.data.map((d: { id: string }) => d.id)).toEqual([ids.live]);
  });

  it('answers hostile query input with VALIDATION_ERROR, never 500', async () => {
    for (const q of ['status=PAID', 'status=CONFIRMED&status=FLAGGED', 'chain=DOGE', 'wallet_id=abc', 'customer_id=1%27', 'limit=100000', 'page=-1', 'page=1e9', 'limit=abc']) {
      const res = await get(t.ws.testKey, `/v2/transactions/deposits?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code, q).toBe('VALIDATION_ERROR');
    }
  });
});

describe('GET /v2/transactions', () => {
  it('lists deposits as transaction records, newest first, filtered by type and chain', async () => {
    const res = await get(t.ws.testKey, '/v2/transactions');
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toEqual({
      id: ids.native,
      type: 'DEPOSIT',
      chain: 'ETH_TESTNET',
      asset: 'ETH',
      txid: expect.any(String),
      amount: '0.123000000000000000',
      status: 'FLAGGED',
      fee_record: null,
      created_at: '2026-11-24T00:00:03.000Z',
    });
    expect(res.body.total).toBe(3);
    expect((await get(t.ws.testKey, '/v2/transactions?type=WITHDRAWAL')).body).toMatchObject({ total: 0, data: [] });
    expect((await get(t.ws.testKey, '/v2/transactions?type=DEPOSIT&chain=BSC')).body).toMatchObject({ total: 0 });
    expect((await get(t.ws.testKey, '/v2/transactions?type=REFUND')).status).toBe(400);
  });

  it('puts withdrawals in the same feed, by when each started, with the withdrawal list record', async () => {
    await t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
      tx.ledger.post(
        creditDeposit({ id: randomUUID(), network: 'TRON_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: t.ws.workspaceId, gross: Amount.parse('30', 'USDT_TRON'), fee: Amount.zero('USDT_TRON') }),
      ),
    );
    const created = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/withdrawals', { chain: 'TRON', asset: 'USDT_TRON', amount: '12', destination_address: 'TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV' });
    expect(created.status).toBe(201);
    const feed = (await get(t.ws.testKey, '/v2/transactions')).body;
    expect(feed.total).toBe(4);
    expect(feed.data[0]).toEqual({
      id: created.body.id,
      type: 'WITHDRAWAL',
      chain: 'TRON_TESTNET',
      asset: 'USDT_TRON',
      txid: null,
      amount: '12.000000',
      status: 'PENDING',
      fee_record: null,
      created_at: created.body.requested_at,
    });
    expect(feed.data.slice(1).map((r: { type: string }) => r.type)).toEqual(['DEPOSIT', 'DEPOSIT', 'DEPOSIT']);
    expect((await get(t.ws.testKey, '/v2/transactions?type=WITHDRAWAL')).body).toMatchObject({ total: 1, data: [{ id: created.body.id }] });
    expect((await get(t.ws.testKey, '/v2/transactions?type=DEPOSIT&limit=2&page=2')).body).toMatchObject({ total: 3, data: [{ type: 'DEPOSIT' }] });
    expect((await get(t.ws.testKey, '/v2/transactions?chain=ETH')).body.data.every((r: { chain: string }) => r.chain === 'ETH_TESTNET')).toBe(true);
  });
});
