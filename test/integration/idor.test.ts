// Every /v2 route that names a resource, asked by another workspace, or by
// the owner's key of the other network side, for a resource that exists: 404
// NOT_FOUND, never 403 (which would confirm it exists), and nothing changes.
// List filters naming another workspace's wallet or customer find nothing. A
// route with an id that this table does not cover fails the test, so a new
// one cannot be added without its check.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { insertConfirmedUsdtDeposit } from '../support/deposit-rows.js';
import { createWorkspace, uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'idor-attacker' });
const sql = (text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute(text, params);
let victim: CreatedWorkspace;
const ids: Record<string, string> = {};

/** For each route with an id: which of the victim's resources it names, and a body the route would otherwise accept. */
const ROUTES: Record<string, { id: string; body?: unknown }> = {
  'delete /v2/api-keys/:id': { id: 'apiKey' },
  'get /v2/customers/:id': { id: 'customer' },
  'patch /v2/customers/:id': { id: 'customer', body: { label: 'taken over' } },
  'get /v2/wallets/:id': { id: 'wallet' },
  'post /v2/wallets/:id/archive': { id: 'wallet' },
  'get /v2/withdrawals/:id': { id: 'withdrawal' },
  'post /v2/withdrawals/:id/cancel': { id: 'withdrawal' },
  'get /v2/transactions/deposits/:id': { id: 'deposit' },
  'get /v2/webhooks/:id': { id: 'webhook' },
  'patch /v2/webhooks/:id': { id: 'webhook', body: { is_active: false } },
  'delete /v2/webhooks/:id': { id: 'webhook' },
  'post /v2/webhooks/:id/rotate-secret': { id: 'webhook' },
  'get /v2/webhooks/:id/deliveries': { id: 'webhook' },
  'post /v2/webhooks/:id/deliveries/:delivery_id/redeliver': { id: 'webhook' },
  'post /v2/webhooks/:id/deliveries/redeliver-failed': { id: 'webhook', body: { since: new Date(Date.now() - 3_600_000).toISOString() } },
  'get /v2/sandbox/faucet/:drip_id': { id: 'drip' },
};

/** The victim's resources as they are: compared before and after the attacks. */
const snapshot = async () => ({
  customers: await sql(`select label, status, updated_at from customers where workspace_id = ? order by id`, [victim.workspaceId]),
  wallets: await sql(`select status from wallets where workspace_id = ? order by id`, [victim.workspaceId]),
  withdrawals: await sql(`select status, updated_at from withdrawals where workspace_id = ? order by id`, [victim.workspaceId]),
  webhooks: await sql(`select is_active, secret_ciphertext, updated_at from webhook_endpoints where workspace_id = ? order by id`, [victim.workspaceId]),
  keys: await sql(`select revoked_at from api_keys where workspace_id = ? order by id`, [victim.workspaceId]),
  deliveries: await sql(`select count(*)::int as n from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where e.workspace_id = ?`, [victim.workspaceId]),
});

beforeAll(async () => {
  victim = await createWorkspace(t.api, 'idor-victim');
  const as = (method: string, path: string, body?: unknown) => uniqueCall(t.api.baseUrl, victim.testKey, method, path, body);
  ids.customer = (await as('POST', '/v2/customers', { external_ref: 'victim-1' })).body.id;
  const wallet = (await as('POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' })).body;
  ids.wallet = wallet.id;
  await t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
    tx.ledger.post(creditDeposit({ id: randomUUID(), network: 'ETH_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: victim.workspaceId, gross: Amount.parse('100', 'USDT_ETH'), fee: Amount.zero('USDT_ETH') })),
  );
  ids.withdrawal = (await as('POST', '/v2/withdrawals', { chain: 'ETH', asset: 'USDT_ETH', amount: '20', destination_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' })).body.id;
  await insertConfirmedUsdtDeposit(sql, victim.workspaceId, wallet);
  ids.deposit = ((await sql(`select id from deposits where workspace_id = ?`, [victim.workspaceId]))[0] as { id: string }).id;
  ids.webhook = (await as('POST', '/v2/webhooks', { url: 'https://hooks.example.com/victim', events: ['DEPOSIT_CONFIRMED'] })).body.id;
  ids.apiKey = (await as('POST', '/v2/api-keys', { label: 'victim key', scopes: ['wallets:read'] })).body.id;
  ids.drip = (await as('POST', '/v2/sandbox/faucet', { chain: 'ETH', address: wallet.address, assets: [{ symbol: 'USDT_ETH', amount: '5' }] })).body.drip_id;
  for (const [k, v] of Object.entries(ids)) expect(v, k).toMatch(/^[0-9a-f-]{36}$/);
});

describe('another workspace’s resources, and the other network’s', () => {
  it('cover every route that names a resource', () => {
    const withIds = t.api.routes.filter((r) => r.path.includes('/:')).map((r) => `${r.method} ${r.path}`);
    expect(withIds.sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it('are 404 NOT_FOUND on every such route, for another workspace’s keys and the owner’s key of the other side, and nothing changes', async () => {
    const before = await snapshot();
    const attackers = [
      ['another workspace, test key', t.ws.testKey],
      ['another workspace, live key', t.ws.liveKey],
      ['the owner, live key', victim.liveKey],
    ] as const;
    for (const [who, key] of attackers) {
      for (const [route, { id, body }] of Object.entries(ROUTES)) {
        const [method, pattern] = route.split(' ') as [string, string];
        const path = pattern.replace(':id', ids[id]!).replace(':drip_id', ids[id]!).replace(':delivery_id', randomUUID());
        const res = await uniqueCall(t.api.baseUrl, key, method.toUpperCase(), path, method === 'get' || method === 'delete' ? undefined : (body ?? {}));
        expect([res.status, res.body.code], `${who}: ${route}`).toEqual([404, 'NOT_FOUND']);
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('are never found through a list filter', async () => {
    for (const path of [
      `/v2/transactions/deposits?wallet_id=${ids.wallet}`,
      `/v2/transactions/deposits?customer_id=${ids.customer}`,
      `/v2/wallets?customer_id=${ids.customer}`,
    ]) {
      const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', path);
      expect([res.status, res.body.total], path).toEqual([200, 0]);
    }
    // The owner's own key does find them (the ids are real).
    const own = await uniqueCall(t.api.baseUrl, victim.testKey, 'GET', `/v2/transactions/deposits?wallet_id=${ids.wallet}`);
    expect(own.body.total).toBe(1);
  });
});
