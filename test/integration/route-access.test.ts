// Every /v2 route checks the key's access before it looks at the request:
// a key without the route's scope gets 403 INSUFFICIENT_SCOPE whatever body,
// query or Idempotency-Key it sends, so it never learns the schema.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Access } from '../../src/domain/auth/principal.js';
import { READ_SCOPES, SCOPES, type Scope } from '../../src/domain/auth/scopes.js';
import { uniqueCall, useTestApi } from '../support/harness.js';

// Hundreds of requests in a row: the rate limit (tested on its own) must not answer before the scope check.
const t = useTestApi({ env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '1000000' } });
type Key = { keyId: string; secret: string };

/** The endpoints built so far, with the access the API documents for each (docs/api.md#scopes). */
const EXPECTED: [string, string, string][] = [
  ['get', '/v2/chains', 'any key'],
  ['post', '/v2/api-keys', 'api_keys:write'],
  ['get', '/v2/api-keys', 'api_keys:read'],
  ['delete', '/v2/api-keys/:id', 'api_keys:write'],
  ['post', '/v2/customers', 'customers:write'],
  ['get', '/v2/customers', 'customers:read'],
  ['get', '/v2/customers/:id', 'customers:read'],
  ['patch', '/v2/customers/:id', 'customers:write'],
  ['post', '/v2/wallets', 'wallets:write'],
  ['get', '/v2/wallets', 'wallets:read'],
  ['get', '/v2/wallets/:id', 'wallets:read'],
  ['post', '/v2/wallets/:id/archive', 'wallets:write'],
  ['post', '/v2/withdrawals', 'withdrawals:write'],
  ['get', '/v2/withdrawals', 'withdrawals:read'],
  ['get', '/v2/withdrawals/:id', 'withdrawals:read'],
  ['post', '/v2/withdrawals/:id/cancel', 'withdrawals:write'],
  ['get', '/v2/transactions/deposits', 'transactions:read'],
  ['get', '/v2/transactions/deposits/:id', 'transactions:read'],
  ['get', '/v2/transactions/withdrawals', 'transactions:read'],
  ['get', '/v2/transactions', 'transactions:read'],
  ['get', '/v2/balances', 'wallets:read'],
  ['post', '/v2/fees/quote', 'any :read scope'],
  ['get', '/v2/commitment', 'fees:read'],
  ['post', '/v2/webhooks', 'webhooks:write'],
  ['get', '/v2/webhooks', 'webhooks:read'],
  ['get', '/v2/webhooks/:id', 'webhooks:read'],
  ['patch', '/v2/webhooks/:id', 'webhooks:write'],
  ['delete', '/v2/webhooks/:id', 'webhooks:write'],
  ['post', '/v2/webhooks/:id/rotate-secret', 'webhooks:write'],
  ['get', '/v2/webhooks/:id/deliveries', 'webhooks:read'],
  ['post', '/v2/webhooks/:id/deliveries/:delivery_id/redeliver', 'webhooks:write'],
  ['post', '/v2/webhooks/:id/deliveries/redeliver-failed', 'webhooks:write'],
  ['post', '/v2/sandbox/faucet', 'wallets:write'],
  ['get', '/v2/sandbox/faucet/:drip_id', 'wallets:read'],
];

const describeAccess = (a: Access) => (a.kind === 'scope' ? a.scope : a.kind === 'any-key' ? 'any key' : 'any :read scope');

/** Every scope except those that would satisfy the access. */
function lacking(a: Access): Scope[] {
  if (a.kind === 'scope') return SCOPES.filter((s) => s !== a.scope);
  return SCOPES.filter((s) => !READ_SCOPES.includes(s));
}

/** Bodies that would each fail validation, or JSON parsing, if they got that far. */
const HOSTILE_BODIES = ['{"unknown_field":1,"amount":12.5}', '[]', 'null', '{"label":"\\u0000"}', '{"a":', '"x"'];
const HOSTILE_QUERY = '?page=-1&limit=abc&status=NOPE&chain=SOL&x=%00';

describe('access before input', () => {
  const keys = new Map<string, Key>();
  beforeAll(async () => {
    for (const route of t.api.routes) {
      if (route.access.kind === 'any-key') continue;
      const name = describeAccess(route.access);
      if (keys.has(name)) continue;
      const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/api-keys', { label: `lacks ${name}`, scopes: lacking(route.access) });
      expect(res.status).toBe(201);
      keys.set(name, { keyId: res.body.key_id, secret: res.body.secret });
    }
  });

  it('declares every built endpoint with its documented access', () => {
    const declared = t.api.routes.map((r) => [r.method, r.path, describeAccess(r.access)]);
    expect(declared.sort()).toEqual([...EXPECTED].sort());
  });

  it('answers 403 INSUFFICIENT_SCOPE to a key lacking the scope, whatever the body, query or Idempotency-Key', async () => {
    let checked = 0;
    for (const route of t.api.routes) {
      if (route.access.kind === 'any-key') continue;
      const key = keys.get(describeAccess(route.access))!;
      const path = route.path.replace(':id', '3f1b1a52-9c7e-4d51-8f0e-2a57b8c1d9e4') + HOSTILE_QUERY;
      // fetch sends no body with a GET: its hostile input is the query.
      const bodies = route.method === 'get' ? [undefined] : route.method === 'delete' ? [undefined, ...HOSTILE_BODIES] : HOSTILE_BODIES;
      for (const body of bodies) {
        const idempotencyKeys: Record<string, string>[] = [{}, { 'Idempotency-Key': 'walk-1' }, { 'Idempotency-Key': 'not a valid key!' }];
        for (const headers of idempotencyKeys) {
          const res = await uniqueCall(t.api.baseUrl, key, route.method.toUpperCase(), path, body, headers);
          expect([res.status, res.body?.code], `${route.method} ${route.path} ${body} ${JSON.stringify(headers)}`).toEqual([
            403,
            'INSUFFICIENT_SCOPE',
          ]);
          expect(res.body.details).toBeUndefined();
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(140);
  });

  it('still validates the input of a key that holds the scope', async () => {
    const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/customers', { unknown_field: 1 });
    expect([res.status, res.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});
