// Customers and deposit wallets over real HTTP against the real database
// (issue 6 acceptance): real address formats re-derived independently,
// concurrency of index allocation, idempotency, scoping, encryption at rest.
import { TronWeb } from 'tronweb';
import { mnemonicToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { SetNetworkEnabled } from '../../src/application/chains/set-network-enabled.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { TEST_SEED, createWorkspace, uniqueCall, useTestApi, type TestApi } from '../support/harness.js';

const t = useTestApi();
let api: TestApi;
let ws: CreatedWorkspace;
beforeAll(() => {
  ({ api, ws } = t);
});

type Key = { keyId: string; secret: string };
const req = (key: Key, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  uniqueCall(api.baseUrl, key, method, path, body, headers);

const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T>(text, params);

describe('customers', () => {
  it('creates, reads, lists with filters and updates a customer', async () => {
    const created = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'user-1', label: 'Alice', metadata: { tier: 'gold' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ external_ref: 'user-1', label: 'Alice', metadata: { tier: 'gold' }, status: 'ACTIVE' });
    const id = created.body.id;
    expect((await req(ws.testKey, 'GET', `/v2/customers/${id}`)).body).toEqual(created.body);
    await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'user-2' });
    const byRef = await req(ws.testKey, 'GET', '/v2/customers?external_ref=user-2');
    expect(byRef.body).toMatchObject({ total: 1, page: 1, limit: 20 });
    expect(byRef.body.data[0]).toMatchObject({ external_ref: 'user-2', label: null, metadata: null });
    const patched = await req(ws.testKey, 'PATCH', `/v2/customers/${id}`, { label: null, status: 'ARCHIVED' });
    expect(patched.body).toMatchObject({ label: null, status: 'ARCHIVED', metadata: { tier: 'gold' } });
    const archived = await req(ws.testKey, 'GET', '/v2/customers?status=ARCHIVED');
    expect(archived.body.data.map((c: { id: string }) => c.id)).toEqual([id]);
  });

  it('answers 409 CONFLICT to a duplicate external_ref in the workspace and network, and allows it on the other network', async () => {
    await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'dup-ref' });
    const dup = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'dup-ref' });
    expect([dup.status, dup.body.code]).toEqual([409, 'CONFLICT']);
    expect((await req(ws.liveKey, 'POST', '/v2/customers', { external_ref: 'dup-ref' })).status).toBe(201);
  });

  it('validates input: lengths, metadata object and size, unknown fields, status', async () => {
    for (const body of [
      {},
      { external_ref: '' },
      { external_ref: 'x'.repeat(256) },
      { external_ref: 'ok', label: 'x'.repeat(256) },
      { external_ref: 'ok', metadata: [1, 2] },
      { external_ref: 'ok', metadata: 'text' },
      { external_ref: 'ok', metadata: { blob: 'x'.repeat(9000) } },
      '{"external_ref":"ok","metadata":{"big":123456789012345678901234567890}}',
      '{"external_ref":"ok","metadata":{"huge":1e400}}',
      { external_ref: 'ok', email: 'a@b.c' },
    ]) {
      const res = await req(ws.testKey, 'POST', '/v2/customers', body);
      expect([res.status, res.body.code], JSON.stringify(body).slice(0, 60)).toEqual([400, 'VALIDATION_ERROR']);
    }
    const c = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'patchable' });
    const bad = await req(ws.testKey, 'PATCH', `/v2/customers/${c.body.id}`, { status: 'DELETED' });
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await req(ws.testKey, 'GET', '/v2/customers?limit=0')).status).toBe(400);
    const far = await req(ws.testKey, 'GET', '/v2/customers?page=2147483648&limit=100');
    expect([far.status, far.body.page, far.body.data]).toEqual([200, 2147483648, []]);
    for (const [query, message] of [
      ['page=0', 'must be at least 1'],
      ['page=10000000000000000000', 'must be at most 1000000000000000'],
      ['page=-1', 'must be a positive integer'],
      ['limit=101', 'must be at most 100'],
      // One spelling per number: a leading zero or sign is another spelling, refused (limit=05 was taken as 5).
      ['limit=05', 'must be a positive integer'],
      ['page=01', 'must be a positive integer'],
      ['limit=+5', 'must be a positive integer'],
    ]) {
      const res = await req(ws.testKey, 'GET', `/v2/customers?${query}`);
      expect([res.status, res.body.details?.[0]?.message], query).toEqual([400, message]);
    }
  });

  it('refuses what PostgreSQL cannot store (NUL characters, deep nesting) as VALIDATION_ERROR naming the place, storing nothing', async () => {
    let nested: unknown = 'bottom';
    for (let i = 0; i < 200; i++) nested = [nested];
    const c = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'clean' });
    const cases: [string, string, unknown, string][] = [
      ['POST', '/v2/customers', { external_ref: 'nul\u0000ref' }, 'external_ref'],
      ['POST', '/v2/customers', { external_ref: 'ok-nul', label: 'a\u0000' }, 'label'],
      ['POST', '/v2/customers', { external_ref: 'ok-nul', metadata: { note: 'x\u0000y' } }, 'metadata.note'],
      ['POST', '/v2/customers', { external_ref: 'ok-nul', metadata: { ['k\u0000']: 1 } }, 'metadata.k\u0000'],
      ['POST', '/v2/customers', { external_ref: 'ok-deep', metadata: { deep: nested } }, ['metadata', 'deep', ...Array<string>(30).fill('0')].join('.')],
      ['PATCH', `/v2/customers/${c.body.id}`, { label: 'x\u0000' }, 'label'],
      ['POST', '/v2/wallets', { chain: 'ETH', asset: 'ETH', external_ref: '\u0000' }, 'external_ref'],
      ['GET', '/v2/customers?external_ref=%00', undefined, 'external_ref'],
    ];
    for (const [method, path, body, at] of cases) {
      const res = await req(ws.testKey, method, path, body);
      expect([res.status, res.body.code, res.body.details?.[0]?.path], `${method} ${path}`).toEqual([400, 'VALIDATION_ERROR', at]);
    }
    // 20,000 levels fit in 40 KB; only a walker without recursion survives them.
    const abyss = `{"external_ref":"abyss","metadata":{"deep":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`;
    const deep = await req(ws.testKey, 'POST', '/v2/customers', abyss);
    expect([deep.status, deep.body.code, deep.body.details?.[0]?.message]).toEqual([400, 'VALIDATION_ERROR', 'nested deeper than 32 levels']);
    const lone = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'lone', label: 'half a pair \ud83d' });
    expect([lone.status, lone.body.details?.[0]?.path]).toEqual([400, 'label']);
    expect((await req(ws.testKey, 'GET', '/v2/customers?external_ref=ok-nul')).body.total).toBe(0);
    expect((await req(ws.testKey, 'GET', `/v2/customers/${c.body.id}`)).body.label).toBeNull();
  });

  it('refuses a PATCH whose body is not a JSON object (null, an array, no body) and changes nothing', async () => {
    const c = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'not-an-object', label: 'kept' });
    for (const body of ['null', '[]', '[{"label":"x"}]', '"label"', '42', undefined]) {
      const res = await req(ws.testKey, 'PATCH', `/v2/customers/${c.body.id}`, body);
      expect([res.status, res.body.code], String(body)).toEqual([400, 'VALIDATION_ERROR']);
    }
    const empty = await req(ws.testKey, 'PATCH', `/v2/customers/${c.body.id}`, {});
    expect(empty.status).toBe(200);
    expect((await req(ws.testKey, 'GET', `/v2/customers/${c.body.id}`)).body).toEqual(c.body);
  });

  it('serialises concurrent updates of one customer: every PATCH succeeds, none is lost to a lock', async () => {
    const c = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'contended' });
    const labels = Array.from({ length: 12 }, (_, i) => `label-${i}`);
    const results = await Promise.all(labels.map((label) => req(ws.testKey, 'PATCH', `/v2/customers/${c.body.id}`, { label })));
    expect(results.map((r) => r.status)).toEqual(labels.map(() => 200));
    expect(labels).toContain((await req(ws.testKey, 'GET', `/v2/customers/${c.body.id}`)).body.label);
  });

  it('keeps metadata exactly as sent, "__proto__" keys included', async () => {
    const metadata = JSON.parse('{"__proto__":{"x":1},"constructor":"c","nested":{"b":2,"a":1}}') as object;
    const created = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'opaque-meta', metadata });
    expect(created.status).toBe(201);
    const read = await req(ws.testKey, 'GET', `/v2/customers/${created.body.id}`);
    expect(JSON.stringify(read.body.metadata)).toBe(JSON.stringify(metadata));
    const replaced = JSON.parse('{"z":1,"__proto__":"p","a":{"__proto__":[1]}}') as object;
    const patched = await req(ws.testKey, 'PATCH', `/v2/customers/${created.body.id}`, { metadata: replaced });
    expect(JSON.stringify(patched.body.metadata)).toBe(JSON.stringify(replaced));
    const reread = await req(ws.testKey, 'GET', `/v2/customers/${created.body.id}`);
    expect(JSON.stringify(reread.body.metadata)).toBe(JSON.stringify(replaced));
  });

  it('answers 404, never 500, to an id that cannot even be percent-decoded', async () => {
    for (const [method, path] of [
      ['GET', '/v2/customers/%ZZ'],
      ['PATCH', '/v2/customers/%E0%A4%A'],
      ['GET', '/v2/wallets/%ZZ'],
      ['POST', '/v2/wallets/%ZZ/archive'],
      ['DELETE', '/v2/api-keys/%E0%A4%A'],
    ] as const) {
      const res = await req(ws.testKey, method, path, method === 'PATCH' ? { label: 'x' } : undefined);
      expect([res.status, res.body.code], `${method} ${path}`).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('replays a create with the same Idempotency-Key and refuses another body under it', async () => {
    const first = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'idem-c' }, { 'Idempotency-Key': 'cust-1' });
    const again = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'idem-c' }, { 'Idempotency-Key': 'cust-1' });
    expect([again.status, again.headers.get('idempotent-replay'), again.body.id]).toEqual([201, 'true', first.body.id]);
    expect(again.text).toBe(first.text);
    const other = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'idem-d' }, { 'Idempotency-Key': 'cust-1' });
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_MISMATCH']);
  });
});

describe('wallets', () => {
  it('creates wallets on TRON, BSC and ETH for a customer, at the BIP-44 addresses of the seed (re-derived independently)', async () => {
    const customer = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'wallet-owner' });
    const made: Record<string, { address: string; chain: string; customer_id: string }> = {};
    for (const [chain, asset] of [
      ['TRON', 'USDT_TRON'],
      ['BSC', 'USDT_BSC'],
      ['ETH', 'USDC_ETH'],
      ['ETH', 'EURC_ETH'],
    ] as const) {
      const res = await req(ws.testKey, 'POST', '/v2/wallets', { chain, asset, customer_id: customer.body.id, external_ref: `ref-${asset}` });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ chain: `${chain}_TESTNET`, asset, status: 'ACTIVE', customer_id: customer.body.id });
      expect(res.body).not.toHaveProperty('external_ref');
      made[asset] = res.body;
    }
    const rows = await sql<{ address: string; derivation_account: number; derivation_index: number; asset: string }[]>(
      `select address, derivation_account, derivation_index, asset from wallets where workspace_id = ?`,
      [ws.workspaceId],
    );
    for (const row of rows) {
      const path = { accountIndex: row.derivation_account, addressIndex: row.derivation_index };
      if (row.asset === 'USDT_TRON') {
        const expected = TronWeb.fromMnemonic(TEST_SEED, `m/44'/195'/${path.accountIndex}'/0/${path.addressIndex}`).address;
        expect(row.address).toBe(expected);
        expect(row.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      } else {
        expect(row.address).toBe(mnemonicToAccount(TEST_SEED, path).address);
      }
      expect(made[row.asset]!.address).toBe(row.address);
    }
    expect(new Set(rows.map((r) => r.derivation_account)).size).toBe(3);
  });

  it("takes customer_id and external_ref null for the workspace's own address", async () => {
    const own = await req(ws.testKey, 'POST', '/v2/wallets', { chain: 'BSC', asset: 'BNB', customer_id: null, external_ref: null });
    expect([own.status, own.body.customer_id]).toEqual([201, null]);
    const owner = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'capitals' });
    const shouted = await req(ws.testKey, 'POST', '/v2/wallets', { chain: 'BSC', asset: 'BNB', customer_id: owner.body.id.toUpperCase() });
    expect([shouted.status, shouted.body.customer_id]).toEqual([201, owner.body.id]);
    const listed = await req(ws.testKey, 'GET', `/v2/wallets?customer_id=${owner.body.id.toUpperCase()}`);
    expect(listed.body.data.map((w: { id: string }) => w.id)).toEqual([shouted.body.id]);
    expect((await req(ws.testKey, 'GET', `/v2/wallets/${own.body.id}`)).body.external_ref).toBeNull();
  });

  it('gives concurrent creates distinct indexes and skips none: every index below the counter is a wallet’s or pooled, fewer than 20 unused', async () => {
    const other = await createWorkspace(api, 'concurrent');
    const burst = (n: number) => Promise.all(Array.from({ length: n }, () => req(other.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' })));
    const results = [...(await burst(20)), ...(await burst(40))];
    expect(results.every((r) => r.status === 201)).toBe(true);
    const [account] = await sql<{ account: number; next_index: number }[]>(
      `select account, next_index from hd_accounts where workspace_id = ? and network = 'ETH_TESTNET'`,
      [other.workspaceId],
    );
    const used = (await sql<{ i: number }[]>(`select derivation_index as i from wallets where derivation_account = ?`, [account!.account])).map((r) => r.i);
    const pooled = await sql<{ i: number; address: string }[]>(`select index as i, address from address_pool where account = ?`, [account!.account]);
    expect(used.length).toBe(60);
    expect([...used, ...pooled.map((p) => p.i)].sort((a, b) => a - b)).toEqual(Array.from({ length: account!.next_index }, (_, i) => i));
    expect(pooled.length).toBeLessThan(20);
    expect(new Set(results.map((r) => r.body.address)).size).toBe(60);
    // Each address is the one its index derives to, re-derived independently: the wallets' and those still pooled.
    const wallets = await sql<{ i: number; address: string }[]>(`select derivation_index as i, address from wallets where derivation_account = ?`, [account!.account]);
    for (const p of [...wallets, ...pooled]) expect(p.address).toBe(mnemonicToAccount(TEST_SEED, { accountIndex: account!.account, addressIndex: p.i }).address);
    // Account numbers are drawn once per (workspace, network), not once per wallet.
    const before = await sql<{ v: string }[]>(`select last_value::text as v from hd_accounts_account_seq`);
    for (let i = 0; i < 3; i++) await req(other.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'ETH' });
    expect(await sql<{ v: string }[]>(`select last_value::text as v from hd_accounts_account_seq`)).toEqual(before);
  });

  it('serves more concurrent idempotent creates than the pool has connections, without exhausting it', async () => {
    const other = await createWorkspace(api, 'pool');
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        req(other.testKey, 'POST', '/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON' }, { 'Idempotency-Key': `pool-${i}` }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(25).fill(201));
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('replays a wallet create with the same Idempotency-Key and refuses another body with IDEMPOTENCY_MISMATCH', async () => {
    const body = { chain: 'BSC', asset: 'BNB' };
    const first = await req(ws.testKey, 'POST', '/v2/wallets', body, { 'Idempotency-Key': 'wallet-key-1' });
    const again = await req(ws.testKey, 'POST', '/v2/wallets', body, { 'Idempotency-Key': 'wallet-key-1' });
    expect([again.status, again.headers.get('idempotent-replay')]).toEqual([201, 'true']);
    expect(again.body).toEqual(first.body);
    const other = await req(ws.testKey, 'POST', '/v2/wallets', { chain: 'BSC', asset: 'USDT_BSC' }, { 'Idempotency-Key': 'wallet-key-1' });
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_MISMATCH']);
  });

  it('refuses USDT_TRON on ETH, a customer of another workspace, an archived customer and a disabled network', async () => {
    const pair = await req(ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_TRON' });
    expect([pair.status, pair.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const stranger = await createWorkspace(api, 'stranger');
    const theirs = await req(stranger.testKey, 'POST', '/v2/customers', { external_ref: 'theirs' });
    const foreign = await req(ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'ETH', customer_id: theirs.body.id });
    expect([foreign.status, foreign.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const retired = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'retired' });
    await req(ws.testKey, 'PATCH', `/v2/customers/${retired.body.id}`, { status: 'ARCHIVED' });
    const archivedCustomer = await req(ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'ETH', customer_id: retired.body.id });
    expect([archivedCustomer.status, archivedCustomer.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const mainnet = await req(ws.liveKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'ETH' });
    expect([mainnet.status, mainnet.body.code]).toEqual([422, 'CHAIN_NOT_ENABLED']);
    const set = api.infra.container.resolve(SetNetworkEnabled);
    // A mainnet with no node URL cannot be switched on (docs/operations.md#networks).
    await expect(set.execute('ETH_MAINNET', true)).rejects.toMatchObject({ code: 'UNPROCESSABLE' });
    await set.execute('TRON_TESTNET', false);
    try {
      const disabled = await req(ws.testKey, 'POST', '/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON' });
      expect([disabled.status, disabled.body.code]).toEqual([422, 'CHAIN_NOT_ENABLED']);
      const chains = await req(ws.testKey, 'GET', '/v2/chains');
      expect(chains.body.data.find((c: { chain: string }) => c.chain === 'TRON_TESTNET').enabled).toBe(false);
    } finally {
      await set.execute('TRON_TESTNET', true);
    }
    expect((await req(ws.testKey, 'POST', '/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON' })).status).toBe(201);
  });

  it('keeps the live and test sides apart: neither sees the other customers or wallets', async () => {
    const testWallet = await req(ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'ETH' });
    const testCustomer = await req(ws.testKey, 'POST', '/v2/customers', { external_ref: 'test-only' });
    expect((await req(ws.liveKey, 'GET', `/v2/wallets/${testWallet.body.id}`)).status).toBe(404);
    expect((await req(ws.liveKey, 'GET', `/v2/customers/${testCustomer.body.id}`)).status).toBe(404);
    const liveWallets = await req(ws.liveKey, 'GET', '/v2/wallets?limit=100');
    expect(liveWallets.body.data.some((w: { chain: string }) => w.chain.endsWith('_TESTNET'))).toBe(false);
    const liveCustomers = await req(ws.liveKey, 'GET', '/v2/customers?limit=100');
    expect(liveCustomers.body.data.map((c: { id: string }) => c.id)).not.toContain(testCustomer.body.id);
    const stranger = await createWorkspace(api, 'nosy');
    expect((await req(stranger.testKey, 'GET', `/v2/wallets/${testWallet.body.id}`)).status).toBe(404);
    expect((await req(stranger.testKey, 'PATCH', `/v2/customers/${testCustomer.body.id}`, { label: 'x' })).status).toBe(404);
  });

  it('lists with filters (ARCHIVED left out unless asked, no external_ref), reads the detail with external_ref, archives', async () => {
    const owner = await createWorkspace(api, 'lister');
    const c = await req(owner.testKey, 'POST', '/v2/customers', { external_ref: 'filter-me' });
    const a = await req(owner.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH', external_ref: 'secret-ref-a', customer_id: c.body.id });
    const b = await req(owner.testKey, 'POST', '/v2/wallets', { chain: 'BSC', asset: 'BNB' });
    const all = await req(owner.testKey, 'GET', '/v2/wallets');
    expect(all.body.total).toBe(2);
    expect(all.body.data.map((w: { id: string }) => w.id)).toEqual([b.body.id, a.body.id]);
    expect(all.body.data.every((w: object) => !('external_ref' in w))).toBe(true);
    expect((await req(owner.testKey, 'GET', '/v2/wallets?chain=BSC')).body.data.map((w: { id: string }) => w.id)).toEqual([b.body.id]);
    expect((await req(owner.testKey, 'GET', '/v2/wallets?chain=ETH_TESTNET')).body.total).toBe(1);
    expect((await req(owner.testKey, 'GET', '/v2/wallets?chain=ETH_MAINNET')).body.total).toBe(0);
    expect((await req(owner.testKey, 'GET', `/v2/wallets?customer_id=${c.body.id}`)).body.total).toBe(1);
    expect((await req(owner.testKey, 'GET', '/v2/wallets?asset=BNB')).body.total).toBe(1);
    expect((await req(owner.testKey, 'GET', '/v2/wallets?chain=SOL')).status).toBe(400);
    const detail = await req(owner.testKey, 'GET', `/v2/wallets/${a.body.id}`);
    expect(detail.body).toMatchObject({ id: a.body.id, external_ref: 'secret-ref-a' });
    const archived = await req(owner.testKey, 'POST', `/v2/wallets/${a.body.id}/archive`);
    expect([archived.status, archived.body.status]).toEqual([200, 'ARCHIVED']);
    expect((await req(owner.testKey, 'POST', `/v2/wallets/${a.body.id}/archive`)).body.status).toBe('ARCHIVED');
    expect((await req(owner.testKey, 'GET', '/v2/wallets')).body.total).toBe(1);
    expect((await req(owner.testKey, 'GET', '/v2/wallets?status=ARCHIVED')).body.data[0].id).toBe(a.body.id);
    expect((await req(owner.testKey, 'POST', `/v2/wallets/not-a-uuid/archive`)).status).toBe(404);
  });

  it('never stores an external_ref in clear', async () => {
    await req(ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'ETH', external_ref: 'PLAINTEXT-MARKER-7731' }, { 'Idempotency-Key': 'plain-1' });
    const wallets = await sql<object[]>(`select * from wallets`);
    expect(JSON.stringify(wallets)).not.toContain('PLAINTEXT-MARKER-7731');
    const stored = await sql<object[]>(`select * from idempotency_keys`);
    expect(JSON.stringify(stored)).not.toContain('PLAINTEXT-MARKER-7731');
  });
});
