// POST /v2/sandbox/faucet and GET /v2/sandbox/faucet/{drip_id} over real
// HTTP: who may ask, the faucet's own 400s for a faulty assets list or item
// (and VALIDATION_ERROR for anything else), each limit's 422, and that a
// refused request writes nothing; a queued drip in the documented shape,
// readable by its workspace only, and an Idempotency-Key replay that queues
// nothing twice. Sending it is the chain-worker's (test/e2e/sandbox-deposits).
import { describe, expect, it } from 'vitest';
import { FAUCET_COMMANDS } from '../../src/adapters/cli/faucet-commands.js';
import { runOps } from '../../src/adapters/cli/run-ops.js';
import { WalletClient } from '../../src/sdk/index.js';
import { insertConfirmedUsdtDeposit } from '../support/deposit-rows.js';
import { createWorkspace, uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'faucet-api' });
const sql = (text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute(text, params);
type Key = { keyId: string; secret: string };
const faucet = (key: Key, body: unknown, headers?: Record<string, string>) => uniqueCall(t.api.baseUrl, key, 'POST', '/v2/sandbox/faucet', body, headers);
const drips = async (workspaceId: string) => Number((await sql(`select count(*)::int as n from faucet_drips where workspace_id = ?`, [workspaceId]))[0]!.n);

async function wallet(key: Key, chain: string, asset: string): Promise<{ id: string; address: string }> {
  const res = await uniqueCall(t.api.baseUrl, key, 'POST', '/v2/wallets', { chain, asset });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, address: res.body.address as string };
}

async function ops(...argv: string[]): Promise<void> {
  const code = await runOps(FAUCET_COMMANDS, argv, { resolve: (tok) => t.api.infra.container.resolve(tok as never) }, { out: () => undefined, err: () => undefined });
  expect(code).toBe(0);
}

describe('POST /v2/sandbox/faucet', () => {
  it('answers a faulty body with the faucet’s 400s or VALIDATION_ERROR, and a live key with 403, writing nothing', async () => {
    const usdt = await wallet(t.ws.testKey, 'ETH', 'USDT_ETH');
    const ok = { chain: 'ETH', address: usdt.address };
    const cases: [unknown, number, string][] = [
      [ok, 400, 'FAUCET_NO_ASSETS'],
      [{ ...ok, assets: [] }, 400, 'FAUCET_NO_ASSETS'],
      [{ ...ok, assets: 'USDT_ETH' }, 400, 'FAUCET_NO_ASSETS'],
      [{ ...ok, assets: [{ symbol: 'USDT_BSC' }] }, 400, 'FAUCET_INVALID_ASSET'], // not an asset of ETH
      [{ ...ok, assets: [{ symbol: 'DOGE' }] }, 400, 'FAUCET_INVALID_ASSET'],
      [{ ...ok, assets: [{ symbol: 7 }] }, 400, 'FAUCET_INVALID_ASSET'],
      [{ ...ok, assets: ['USDT_ETH'] }, 400, 'FAUCET_INVALID_ASSET'],
      [{ ...ok, assets: [{ amount: '5' }] }, 400, 'FAUCET_INVALID_ASSET'],
      [{ ...ok, assets: [{ symbol: 'USDT_ETH', amount: 100 }] }, 400, 'FAUCET_INVALID_AMOUNT'],
      [{ ...ok, assets: [{ symbol: 'USDT_ETH', amount: '-1' }] }, 400, 'FAUCET_INVALID_AMOUNT'],
      [{ ...ok, assets: [{ symbol: 'USDT_ETH', amount: '0' }] }, 400, 'FAUCET_INVALID_AMOUNT'],
      [{ ...ok, assets: [{ symbol: 'USDT_ETH', amount: '1e3' }] }, 400, 'FAUCET_INVALID_AMOUNT'],
      [{ ...ok, assets: [{ symbol: 'USDT_ETH', amount: '1.0000001' }] }, 400, 'FAUCET_INVALID_AMOUNT'],
      [{ ...ok, assets: [{ symbol: 'USDT_ETH', amount: '9'.repeat(200) }] }, 400, 'FAUCET_INVALID_AMOUNT'],
      [{ ...ok, chain: 'SOL', assets: [{ symbol: 'USDT_ETH' }] }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, assets: [{ symbol: 'USDT_ETH' }], extra: 1 }, 400, 'VALIDATION_ERROR'],
      [{ ...ok, assets: [{ symbol: 'USDT_ETH', memo: 'x' }] }, 400, 'VALIDATION_ERROR'],
      [{ chain: 'ETH', assets: [{ symbol: 'USDT_ETH' }] }, 400, 'VALIDATION_ERROR'], // no address
      ['[]', 400, 'VALIDATION_ERROR'],
      ['{"chain":', 400, 'INVALID_JSON'],
    ];
    for (const [body, status, code] of cases) {
      const res = await faucet(t.ws.testKey, body);
      expect([res.status, res.body.code], JSON.stringify(body)).toEqual([status, code]);
    }
    // A live key is refused before its body is read.
    expect((await faucet(t.ws.liveKey, { chain: 'ETH' })).body.code).toBe('FAUCET_ONLY_SANDBOX');
    expect((await faucet(t.ws.liveKey, { ...ok, assets: [{ symbol: 'USDT_ETH' }] })).status).toBe(403);
    expect(await drips(t.ws.workspaceId)).toBe(0);
  });

  it('queues a drip in the documented shape, readable by its workspace only; a replay under the same Idempotency-Key queues nothing more', async () => {
    const usdt = await wallet(t.ws.testKey, 'ETH', 'USDT_ETH');
    const before = await drips(t.ws.workspaceId);
    // One address rule for every input: hex without its EIP-55 checksum is refused here as by withdrawals, queuing nothing.
    const lower = await faucet(t.ws.testKey, { chain: 'ETH', address: usdt.address.toLowerCase(), assets: [{ symbol: 'USDT_ETH', amount: '100' }] });
    expect([lower.status, lower.body.code, lower.body.details]).toEqual([400, 'VALIDATION_ERROR', [{ path: 'address', message: expect.stringContaining('EIP-55') }]]);
    expect(await drips(t.ws.workspaceId)).toBe(before);
    const body = { chain: 'ETH', address: usdt.address, assets: [{ symbol: 'USDT_ETH', amount: '100' }] };
    const res = await faucet(t.ws.testKey, body, { 'Idempotency-Key': 'drip-1' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      drip_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'QUEUED',
      chain: 'ETH_TESTNET',
      address: usdt.address,
      items: [{ asset: 'USDT_ETH', amount: '100.000000', status: 'QUEUED' }],
    });
    const replay = await faucet(t.ws.testKey, body, { 'Idempotency-Key': 'drip-1' });
    expect([replay.status, replay.headers.get('idempotent-replay'), replay.body]).toEqual([201, 'true', res.body]);
    expect(await drips(t.ws.workspaceId)).toBe(before + 1);
    // Without an amount: the asset's default.
    const byDefault = await faucet(t.ws.testKey, { chain: 'ETH', address: usdt.address, assets: [{ symbol: 'USDT_ETH' }] });
    expect(byDefault.body.items).toEqual([{ asset: 'USDT_ETH', amount: '1000.000000', status: 'QUEUED' }]);

    const id = res.body.drip_id as string;
    const read = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', `/v2/sandbox/faucet/${id.toUpperCase()}`);
    expect([read.status, read.body]).toEqual([200, res.body]);
    const other = await createWorkspace(t.api, 'faucet-api-other');
    for (const [key, path] of [
      [other.testKey, `/v2/sandbox/faucet/${id}`],
      [t.ws.liveKey, `/v2/sandbox/faucet/${id}`], // drips are on the testnets only
      [t.ws.testKey, '/v2/sandbox/faucet/not-a-uuid'],
      [t.ws.testKey, '/v2/sandbox/faucet/00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const got = await uniqueCall(t.api.baseUrl, key, 'GET', path);
      expect([got.status, got.body.code], path).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('is called through the SDK: requestDrip, then getDrip', async () => {
    const usdt = await wallet(t.ws.testKey, 'ETH', 'USDC_ETH');
    const client = new WalletClient({ baseUrl: t.api.baseUrl, keyId: t.ws.testKey.keyId, secret: t.ws.testKey.secret });
    const { lastResponse: _, ...drip } = await client.requestDrip({ chain: 'ETH', address: usdt.address, assets: [{ symbol: 'USDC_ETH', amount: '12.5' }] }, { idempotencyKey: 'sdk-drip' });
    expect(drip).toMatchObject({ status: 'QUEUED', items: [{ asset: 'USDC_ETH', amount: '12.500000', status: 'QUEUED' }] });
    const replay = await client.requestDrip({ chain: 'ETH', address: usdt.address, assets: [{ symbol: 'USDC_ETH', amount: '12.5' }] }, { idempotencyKey: 'sdk-drip' });
    expect(replay).toMatchObject(drip);
    expect(await client.getDrip(drip.drip_id)).toMatchObject(drip);
  });

  it('answers each limit with its own 422 code, and queues nothing', async () => {
    const ws = await createWorkspace(t.api, 'faucet-api-limits');
    const usdt = await wallet(ws.testKey, 'ETH', 'USDT_ETH');
    const eth = await wallet(ws.testKey, 'ETH', 'ETH');
    const theirs = await wallet(t.ws.testKey, 'ETH', 'USDT_ETH');
    const ask = (address: string, assets: unknown[]) => faucet(ws.testKey, { chain: 'ETH', address, assets });
    const cases: [Promise<{ status: number; body: { code: string } }>, string][] = [
      [ask(theirs.address, [{ symbol: 'USDT_ETH' }]), 'FAUCET_ADDRESS_NOT_FOUND'], // another workspace's wallet
      [ask(usdt.address, ['USDT_ETH', 'USDC_ETH', 'EURC_ETH', 'ETH', 'USDT_ETH', 'USDC_ETH'].map((symbol) => ({ symbol }))), 'FAUCET_TOO_MANY_ITEMS'],
      [ask(usdt.address, [{ symbol: 'USDT_ETH' }, { symbol: 'USDT_ETH', amount: '5' }]), 'FAUCET_DUPLICATE_ASSET'],
      [ask(usdt.address, [{ symbol: 'USDT_ETH', amount: '10000.000001' }]), 'FAUCET_AMOUNT_OVER_CAP'],
      [ask(eth.address, [{ symbol: 'ETH', amount: '0.01' }]), 'FAUCET_NATIVE_REQUIRES_DEPOSIT'],
    ];
    // Not this wallet's asset: the wallet is the workspace's, so the item is at fault (400, naming the wallet's asset).
    const foreign = await ask(usdt.address, [{ symbol: 'USDC_ETH' }]);
    expect([foreign.status, foreign.body.code, (foreign.body as { details?: { path: string; message: string }[] }).details?.[0]]).toEqual([
      400,
      'VALIDATION_ERROR',
      { path: 'assets.0.symbol', message: expect.stringContaining('must be USDT_ETH') },
    ]);
    for (const [pending, code] of cases) {
      const res = await pending;
      expect([res.status, res.body.code]).toEqual([422, code]);
    }
    await insertConfirmedUsdtDeposit(sql, ws.workspaceId, usdt);
    // No node in this test: the dispenser holds nothing, so native drips cannot be funded.
    expect((await ask(eth.address, [{ symbol: 'ETH', amount: '0.01' }])).body.code).toBe('FAUCET_DISPENSER_EXHAUSTED');
    // 0.095 ETH given half an hour ago (a drip the chain-worker sent): 0.01 more would pass the 0.1 budget.
    const given = '00000000-0000-4000-8000-0000000000e1';
    await sql(`insert into faucet_drips values (?, ?, 'ETH_TESTNET', ?, ?, 'COMPLETED', now() - interval '30 minutes', now())`, [given, ws.workspaceId, eth.id, eth.address]);
    await sql(`insert into faucet_drip_items (drip_id, seq, asset, amount, status) values (?, 0, 'ETH', 95000000000000000, 'CONFIRMED')`, [given]);
    const budget = await ask(eth.address, [{ symbol: 'ETH', amount: '0.01' }]);
    expect([budget.status, budget.body.code]).toEqual([422, 'FAUCET_NATIVE_BUDGET_EXCEEDED']);
    expect(budget.body.error).toMatch(/0\.095000000000000000 of the 0\.100000000000000000 budget given in the last 24 hours/);
    expect((await ask(eth.address, [{ symbol: 'ETH', amount: '0.005' }])).body.code).toBe('FAUCET_DISPENSER_EXHAUSTED'); // within the budget
    expect(await drips(ws.workspaceId)).toBe(1);
    await ops('faucet', 'set', '--drips-per-hour', '3'); // the one of half an hour ago counts
    for (let i = 0; i < 2; i++) expect((await ask(usdt.address, [{ symbol: 'USDT_ETH', amount: '1' }])).status).toBe(201);
    const retry = { 'Idempotency-Key': 'after-the-window' };
    const limited = await faucet(ws.testKey, { chain: 'ETH', address: usdt.address, assets: [{ symbol: 'USDT_ETH', amount: '1' }] }, retry);
    expect([limited.status, limited.body.code]).toEqual([422, 'FAUCET_RATE_LIMITED']);
    expect(await drips(ws.workspaceId)).toBe(3);
    // A refusal that says "later" is not remembered under the key: the same request passes once the window allows it.
    await ops('faucet', 'set', '--drips-per-hour', '4');
    const later = await faucet(ws.testKey, { chain: 'ETH', address: usdt.address, assets: [{ symbol: 'USDT_ETH', amount: '1' }] }, retry);
    expect([later.status, later.headers.get('idempotent-replay')]).toEqual([201, null]);
  });
});
