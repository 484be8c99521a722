// POST /v2/withdrawals and its reads and cancel over real HTTP on the real
// database (docs/api.md#withdrawals): validation and the documented codes,
// nothing written on a refusal; the amount locked at once and released by a
// cancel; idempotency under the header or the deprecated body key (a replay
// is 200 with the original body); the owner's mainnet rules with a live key
// (approval, allowlist, limits) and none with a test key; 200 concurrent
// requests against a balance covering 100; another workspace's withdrawal
// and the other network's are not found.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ChainAddressCodec } from '../../src/adapters/chains/address-codec.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { SetWithdrawalPolicy } from '../../src/application/security/set-withdrawal-policy.js';
import { CancelWithdrawal } from '../../src/application/withdrawals/cancel-withdrawal.js';
import { CreateWithdrawal } from '../../src/application/withdrawals/create-withdrawal.js';
import type { Principal } from '../../src/domain/auth/principal.js';
import { SCOPES } from '../../src/domain/auth/scopes.js';
import { TOKENS } from '../../src/application/tokens.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { Asset, Network } from '../../src/domain/money/networks.js';
import type { NetworkRegistry, UnitOfWork } from '../../src/domain/ports.js';
import { TEST_SEED, createWorkspace, uniqueCall, useTestApi } from '../support/harness.js';

// The 200 concurrent requests of one key are about the balance, not the per-key rate limit (which has its own tests).
const t = useTestApi({ workspace: 'withdrawals-api', env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' } });
const OUTSIDE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const OUTSIDE_TRON = 'TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV';

const uow = () => t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
const count = async (table: string) => Number((await sql<{ n: string }>(`select count(*)::text as n from ${table}`))[0]!.n);

/** Credits `gross` of `asset` to the workspace's available on `network`, as a confirmed deposit would (no fee). */
async function fund(workspaceId: string, network: Network, asset: Asset, gross: string) {
  await uow().run((tx) =>
    tx.ledger.post(
      creditDeposit({ id: randomUUID(), network, at: new Date(), depositId: randomUUID(), workspaceId, gross: Amount.parse(gross, asset), fee: Amount.zero(asset) }),
    ),
  );
}

const post = (key: { keyId: string; secret: string }, body: unknown, headers?: Record<string, string>) => uniqueCall(t.api.baseUrl, key, 'POST', '/v2/withdrawals', body, headers);
const balance = async (key: { keyId: string; secret: string }, asset: string) => {
  const res = await uniqueCall(t.api.baseUrl, key, 'GET', `/v2/balances?asset=${asset}`);
  return (res.body.data as { available: string; locked: string }[])[0];
};

describe('POST /v2/withdrawals', () => {
  it('locks the amount at once and answers the create view; the detail adds the destination; a cancel gives it back', async () => {
    await fund(t.ws.workspaceId, 'ETH_TESTNET', 'USDT_ETH', '100');
    const res = await post(t.ws.testKey, { chain: 'ETH', asset: 'USDT_ETH', amount: '30', destination_address: OUTSIDE });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      chain: 'ETH_TESTNET',
      asset: 'USDT_ETH',
      amount: '30.000000',
      fee: '5.000000',
      net_amount: '25.000000',
      status: 'PENDING',
      idempotency_key: null,
      requested_at: expect.any(String),
    });
    expect(await balance(t.ws.testKey, 'USDT_ETH')).toMatchObject({ available: '70.000000', locked: '30.000000' });
    const detail = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', `/v2/withdrawals/${res.body.id as string}`);
    expect(detail.body).toMatchObject({ id: res.body.id, status: 'PENDING', txid: null, destination_address: OUTSIDE, fee_record: null, confirmed_at: null });
    const records = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', '/v2/transactions/withdrawals?status=PENDING');
    expect(records.body.data[0]).toMatchObject({ id: res.body.id, amount: '30.000000', fee_record: null });
    expect(records.body.data[0]).not.toHaveProperty('idempotency_key');
    const cancel = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', `/v2/withdrawals/${res.body.id as string}/cancel`);
    expect([cancel.status, cancel.body.status]).toEqual([200, 'CANCELLED']);
    expect(await balance(t.ws.testKey, 'USDT_ETH')).toMatchObject({ available: '100.000000', locked: '0.000000' });
    const again = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', `/v2/withdrawals/${res.body.id as string}/cancel`);
    expect([again.status, again.body.code]).toEqual([422, 'WITHDRAWAL_NOT_CANCELLABLE']);
  });

  it('refuses bad input and business rules with their documented codes, writing nothing', async () => {
    await fund(t.ws.workspaceId, 'TRON_TESTNET', 'USDT_TRON', '50');
    const signer = new LocalHdSigner(TEST_SEED);
    const codec = new ChainAddressCodec();
    const treasury = await signer.deriveAddress('ETH', servicePath('BSC_MAINNET', 'treasury'));
    const wallet = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON' });
    const before = [await count('withdrawals'), await count('journal_entries')];
    const cases: [unknown, number, string][] = [
      [{ chain: 'ETH', asset: 'USDT_TRON', amount: '1', destination_address: OUTSIDE }, 400, 'VALIDATION_ERROR'],
      [{ chain: 'ETH', asset: 'USDT_ETH', amount: '1e3', destination_address: OUTSIDE }, 400, 'VALIDATION_ERROR'],
      [{ chain: 'ETH', asset: 'USDT_ETH', amount: '1.0000001', destination_address: OUTSIDE }, 400, 'VALIDATION_ERROR'],
      [{ chain: 'ETH', asset: 'USDT_ETH', amount: 10, destination_address: OUTSIDE }, 400, 'VALIDATION_ERROR'],
      [{ chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: OUTSIDE.toLowerCase() }, 400, 'INVALID_DESTINATION_ADDRESS'],
      [{ chain: 'TRON', asset: 'USDT_TRON', amount: '10', destination_address: OUTSIDE }, 400, 'INVALID_DESTINATION_ADDRESS'],
      [{ chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: OUTSIDE, extra: 1 }, 400, 'VALIDATION_ERROR'],
      [{ chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: OUTSIDE, idempotency_key: 'x'.repeat(129) }, 400, 'VALIDATION_ERROR'],
      [{ chain: 'TRON', asset: 'USDT_TRON', amount: '2', destination_address: OUTSIDE_TRON }, 422, 'AMOUNT_TOO_SMALL'],
      [{ chain: 'TRON', asset: 'USDT_TRON', amount: '50.000001', destination_address: OUTSIDE_TRON }, 422, 'INSUFFICIENT_BALANCE'],
      [{ chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: treasury }, 422, 'DESTINATION_IS_INTERNAL'],
      [{ chain: 'TRON', asset: 'USDT_TRON', amount: '10', destination_address: wallet.body.address }, 422, 'DESTINATION_IS_INTERNAL'],
      // The same keys in the other chain's spelling: the TRON deposit address as an EVM address, the BSC treasury on TRON.
      [{ chain: 'BSC', asset: 'USDT_BSC', amount: '10', destination_address: codec.fromAccountId('BSC', codec.accountId('TRON', wallet.body.address as string)!) }, 422, 'DESTINATION_IS_INTERNAL'],
      [{ chain: 'TRON', asset: 'USDT_TRON', amount: '10', destination_address: codec.fromAccountId('TRON', codec.accountId('ETH', treasury)!) }, 422, 'DESTINATION_IS_INTERNAL'],
      // Where funds are lost for good: the zero account, a token contract (of this network or of another).
      [{ chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: '0x0000000000000000000000000000000000000000' }, 400, 'INVALID_DESTINATION_ADDRESS'],
      [{ chain: 'TRON', asset: 'USDT_TRON', amount: '10', destination_address: 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb' }, 400, 'INVALID_DESTINATION_ADDRESS'],
      [{ chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: '0xA15BB66138824a1c7167f5E85b957d04Dd34E468' }, 400, 'INVALID_DESTINATION_ADDRESS'],
      [{ chain: 'TRON', asset: 'USDT_TRON', amount: '10', destination_address: 'TLBeMi7NQkKVvLbGLHArkb3V17TrWTuNYq' }, 400, 'INVALID_DESTINATION_ADDRESS'],
      [{ chain: 'BSC', asset: 'USDT_BSC', amount: '10', destination_address: '0x55d398326f99059fF775485246999027B3197955' }, 400, 'INVALID_DESTINATION_ADDRESS'],
      // Precompiles (0x…01 ecrecover to 0x…11, TRON's 0x…01 in base58), BSC's system contracts, Ethereum's EIP-4788 contract.
      ...['0x0000000000000000000000000000000000000001', '0x0000000000000000000000000000000000000011', '0x0000000000000000000000000000000000001000', '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02'].map(
        (a): [unknown, number, string] => [{ chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: a }, 400, 'INVALID_DESTINATION_ADDRESS'],
      ),
      [{ chain: 'BSC', asset: 'USDT_BSC', amount: '10', destination_address: '0x0000000000000000000000000000000000000009' }, 400, 'INVALID_DESTINATION_ADDRESS'],
      [{ chain: 'TRON', asset: 'USDT_TRON', amount: '10', destination_address: codec.fromAccountId('TRON', `${'0'.repeat(39)}1`) }, 400, 'INVALID_DESTINATION_ADDRESS'],
    ];
    for (const [body, status, code] of cases) {
      const res = await post(t.ws.testKey, body);
      expect([res.status, res.body.code], JSON.stringify(body)).toEqual([status, code]);
    }
    await uow().run((tx) => tx.workspaces.get(t.ws.workspaceId)); // the database is reachable; nothing was written
    expect([await count('withdrawals'), await count('journal_entries')]).toEqual(before);
  });

  it('deduplicates under the Idempotency-Key header or the deprecated body key (the header wins): a replay is 200 with the original body', async () => {
    const ws = await createWorkspace(t.api, 'idem');
    await fund(ws.workspaceId, 'ETH_TESTNET', 'ETH', '1');
    const body = { chain: 'ETH', asset: 'ETH', amount: '0.1', destination_address: OUTSIDE };
    const first = await post(ws.testKey, body, { 'Idempotency-Key': 'w-1' });
    const replay = await post(ws.testKey, body, { 'Idempotency-Key': 'w-1' });
    expect([first.status, replay.status, replay.headers.get('idempotent-replay')]).toEqual([201, 200, 'true']);
    expect(replay.body).toEqual(first.body);
    expect(first.body.idempotency_key).toBe('w-1');
    const mismatch = await post(ws.testKey, { ...body, amount: '0.2' }, { 'Idempotency-Key': 'w-1' });
    expect([mismatch.status, mismatch.body.code]).toEqual([422, 'IDEMPOTENCY_MISMATCH']);
    // The same amount spelled otherwise is the same request (trailing zeros are optional).
    const spelled = await post(ws.testKey, { ...body, amount: '0.100000000000000000' }, { 'Idempotency-Key': 'w-1' });
    expect([spelled.status, spelled.body]).toEqual([200, first.body]);
    const withBodyKey = { ...body, idempotency_key: 'legacy #7' };
    const b1 = await post(ws.testKey, withBodyKey);
    const b2 = await post(ws.testKey, withBodyKey);
    expect([b1.status, b2.status, b2.body.id]).toEqual([201, 200, b1.body.id]);
    expect(b1.body.idempotency_key).toBe('legacy #7');
    const headerWins = await post(ws.testKey, withBodyKey, { 'Idempotency-Key': 'w-2' });
    expect([headerWins.status, headerWins.body.idempotency_key]).toEqual([201, 'w-2']);
    const none1 = await post(ws.testKey, body);
    const none2 = await post(ws.testKey, body);
    expect([none1.status, none2.status]).toEqual([201, 201]);
    expect(none1.body.id).not.toBe(none2.body.id);
    // A null body key is no key (docs/api.md: a request may send null where the response shows null).
    const nullKey = await post(ws.testKey, { ...body, idempotency_key: null });
    expect([nullKey.status, nullKey.body.idempotency_key]).toEqual([201, null]);
    expect([none1.body.id, none2.body.id]).not.toContain(nullKey.body.id);
    expect((await balance(ws.testKey, 'ETH'))!.locked).toBe('0.600000000000000000'); // six withdrawals from eight requests
    // A refusal under a key: what the create wrote before the refusal is undone, the refusal is kept and replayed.
    const before = [await count('withdrawals'), await count('journal_entries'), await count('idempotency_keys')];
    const tooMuch = { ...body, amount: '0.6' };
    const refused = await post(ws.testKey, tooMuch, { 'Idempotency-Key': 'w-3' });
    const again = await post(ws.testKey, tooMuch, { 'Idempotency-Key': 'w-3' });
    expect([refused.status, refused.body.code, again.status, again.body.code, again.headers.get('idempotent-replay')]).toEqual([422, 'INSUFFICIENT_BALANCE', 422, 'INSUFFICIENT_BALANCE', 'true']);
    expect([await count('withdrawals'), await count('journal_entries'), await count('idempotency_keys')]).toEqual([before[0], before[1], before[2]! + 1]);
  });

  it('applies the owner’s rules on mainnet: approval above the threshold, then the limits and the allowlist; none on a testnet', async () => {
    // Mainnets run only in production mode: the use case is driven directly here, with ETH_MAINNET open.
    const ws = await createWorkspace(t.api, 'mainnet-rules');
    await fund(ws.workspaceId, 'ETH_MAINNET', 'USDT_ETH', '1000');
    await fund(ws.workspaceId, 'ETH_TESTNET', 'USDT_ETH', '1000');
    const container = t.api.infra.container.createChildContainer();
    const registry = t.api.infra.container.resolve<NetworkRegistry>(TOKENS.NetworkRegistry);
    container.registerInstance<NetworkRegistry>(TOKENS.NetworkRegistry, {
      list: async () => (await registry.list()).map((c) => ({ ...c, enabled: true })),
      get: async (n) => ({ ...(await registry.get(n)), enabled: true }),
    });
    const create = container.resolve(CreateWithdrawal);
    const principal = (side: 'live' | 'test'): Principal => ({
      workspaceId: ws.workspaceId,
      apiKeyId: randomUUID(),
      keyId: `sk_${side}_x`,
      side,
      scopes: new Set(SCOPES),
      restrictions: { allowedIps: [], expiresAt: null },
    });
    const request = (amount: string, destination = OUTSIDE, side: 'live' | 'test' = 'live') =>
      create.execute(principal(side), { chain: 'ETH', asset: 'USDT_ETH', amount, destination, idempotencyKey: null });
    const reason = (p: Promise<unknown>) => p.then(() => 'accepted', (err: { code: string; details?: { reason?: string } }) => `${err.code}:${err.details?.reason ?? ''}`);
    const set = t.api.infra.container.resolve(SetWithdrawalPolicy);
    await set.execute({ workspaceId: ws.workspaceId, approvalAbove: '100', perTxLimit: '300', dailyLimit: '500' });
    const big = await request('150');
    expect([big.status, big.network]).toEqual(['PENDING_APPROVAL', 'ETH_MAINNET']);
    const events = await sql<{ event: string }>(`select event from webhook_events where workspace_id = ? and event = 'WITHDRAWAL_PENDING_APPROVAL'`, [ws.workspaceId]);
    expect(events).toHaveLength(1);
    expect((await request('100')).status).toBe('PENDING');
    expect(await reason(request('300.000001'))).toBe('WITHDRAWAL_POLICY_VIOLATION:PER_TRANSACTION_LIMIT');
    expect(await reason(request('250.000001'))).toBe('WITHDRAWAL_POLICY_VIOLATION:DAILY_LIMIT'); // 150 + 100 + this > 500
    // A cancelled one no longer counts against the day.
    await t.api.infra.container.resolve(CancelWithdrawal).execute(principal('live'), big.id);
    expect(await reason(request('250.000001'))).toBe('accepted');
    await set.execute({ workspaceId: ws.workspaceId, allowlist: [OUTSIDE_TRON] });
    expect(await reason(request('10'))).toBe('WITHDRAWAL_POLICY_VIOLATION:DESTINATION_NOT_ALLOWLISTED');
    // Testnet withdrawals are not subject to any of it.
    expect((await request('900', OUTSIDE, 'test')).status).toBe('PENDING');
  });

  it('lets two concurrent mainnet withdrawals pass a daily limit only together within it', async () => {
    const ws = await createWorkspace(t.api, 'daily-race');
    await fund(ws.workspaceId, 'ETH_MAINNET', 'USDT_ETH', '1000');
    const container = t.api.infra.container.createChildContainer();
    const registry = t.api.infra.container.resolve<NetworkRegistry>(TOKENS.NetworkRegistry);
    container.registerInstance<NetworkRegistry>(TOKENS.NetworkRegistry, {
      list: async () => (await registry.list()).map((c) => ({ ...c, enabled: true })),
      get: async (n) => ({ ...(await registry.get(n)), enabled: true }),
    });
    const create = container.resolve(CreateWithdrawal);
    await t.api.infra.container.resolve(SetWithdrawalPolicy).execute({ workspaceId: ws.workspaceId, dailyLimit: '100' });
    const principal: Principal = { workspaceId: ws.workspaceId, apiKeyId: randomUUID(), keyId: 'sk_live_x', side: 'live', scopes: new Set(SCOPES), restrictions: { allowedIps: [], expiresAt: null } };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => create.execute(principal, { chain: 'ETH', asset: 'USDT_ETH', amount: '60', destination: OUTSIDE, idempotencyKey: null })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.details)).toEqual(Array(9).fill({ reason: 'DAILY_LIMIT' }));
  });

  it('accepts exactly as many of 200 concurrent withdrawals as the balance covers', async () => {
    const ws = await createWorkspace(t.api, 'race');
    await fund(ws.workspaceId, 'BSC_TESTNET', 'USDT_BSC', '100');
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => post(ws.testKey, { chain: 'BSC', asset: 'USDT_BSC', amount: '1', destination_address: OUTSIDE })),
    );
    const codes = answers.map((a) => (a.status === 201 ? 'OK' : (a.body.code as string)));
    expect(codes.filter((c) => c !== 'OK' && c !== 'INSUFFICIENT_BALANCE'), JSON.stringify(answers.find((a) => a.status !== 201 && a.body.code !== 'INSUFFICIENT_BALANCE')?.body)).toEqual([]);
    expect(codes.filter((c) => c === 'OK')).toHaveLength(100);
    expect(codes.filter((c) => c === 'INSUFFICIENT_BALANCE')).toHaveLength(100);
    expect(await balance(ws.testKey, 'USDT_BSC')).toMatchObject({ available: '0.000000', locked: '100.000000' });
  }, 60_000);

  it('shows another workspace’s withdrawal, or the other network’s, as not found, and checks scopes', async () => {
    const ws = await createWorkspace(t.api, 'owner');
    await fund(ws.workspaceId, 'ETH_TESTNET', 'USDT_ETH', '100');
    const mine = await post(ws.testKey, { chain: 'ETH', asset: 'USDT_ETH', amount: '10', destination_address: OUTSIDE });
    for (const [key, path] of [
      [t.ws.testKey, `/v2/withdrawals/${mine.body.id as string}`],
      [ws.liveKey, `/v2/withdrawals/${mine.body.id as string}`],
      [t.ws.testKey, `/v2/withdrawals/${mine.body.id as string}/cancel`],
      [ws.testKey, '/v2/withdrawals/not-a-uuid'],
    ] as const) {
      const res = await uniqueCall(t.api.baseUrl, key, path.endsWith('cancel') ? 'POST' : 'GET', path);
      expect([res.status, res.body.code], path).toEqual([404, 'NOT_FOUND']);
    }
    const list = await uniqueCall(t.api.baseUrl, ws.liveKey, 'GET', '/v2/withdrawals');
    expect(list.body.total).toBe(0);
    const readOnly = await uniqueCall(t.api.baseUrl, ws.testKey, 'POST', '/v2/api-keys', { label: 'reader', scopes: ['withdrawals:read'] });
    const reader = { keyId: readOnly.body.key_id as string, secret: readOnly.body.secret as string };
    const refused = await post(reader, { chain: 'ETH', asset: 'USDT_ETH', amount: '1', destination_address: OUTSIDE });
    expect([refused.status, refused.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    expect((await uniqueCall(t.api.baseUrl, reader, 'GET', '/v2/transactions/withdrawals')).body.code).toBe('INSUFFICIENT_SCOPE');
    expect((await uniqueCall(t.api.baseUrl, reader, 'GET', '/v2/withdrawals')).body.total).toBe(1);
  });
});
