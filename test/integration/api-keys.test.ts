// API key management over real HTTP (docs/api.md#api-keys).
import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { createWorkspace, uniqueCall, useTestApi, type TestApi } from '../support/harness.js';

const t = useTestApi();
let api: TestApi;
let ws: CreatedWorkspace;
beforeAll(() => {
  ({ api, ws } = t);
});

const req = (key: { keyId: string; secret: string }, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  uniqueCall(api.baseUrl, key, method, path, body, headers);

describe('POST /v2/api-keys', () => {
  it('creates a key with a subset of scopes on the creator network; its secret is shown once and it works', async () => {
    const res = await req(ws.testKey, 'POST', '/v2/api-keys', { label: 'reader', scopes: ['wallets:read', 'fees:read'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      label: 'reader',
      scopes: ['wallets:read', 'fees:read'],
      permission: null,
      allowed_ips: [],
      is_test: true,
      last_used_at: null,
      expires_at: null,
    });
    expect(res.body.key_id).toMatch(/^sk_test_/);
    expect(typeof res.body.secret).toBe('string');
    const child = { keyId: res.body.key_id, secret: res.body.secret };
    expect((await req(child, 'GET', '/v2/chains')).status).toBe(200);
    const list = await req(ws.testKey, 'GET', '/v2/api-keys');
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
    expect(list.body.data.every((k: Record<string, unknown>) => !('secret' in k))).toBe(true);
  });

  it('takes null where the key shows null: no permission, no IP restriction, no expiry', async () => {
    const res = await req(ws.testKey, 'POST', '/v2/api-keys', {
      label: 'explicit nulls',
      scopes: ['fees:read'],
      permission: null,
      allowed_ips: null,
      expires_at: null,
    });
    expect([res.status, res.body.permission, res.body.allowed_ips, res.body.expires_at]).toEqual([201, null, [], null]);
  });

  it('answers 403 INSUFFICIENT_SCOPE outside the key scopes, and refuses to mint a scope the creator lacks', async () => {
    const minter = await req(ws.testKey, 'POST', '/v2/api-keys', { label: 'minter', scopes: ['api_keys:write', 'api_keys:read'] });
    const key = { keyId: minter.body.key_id, secret: minter.body.secret };
    const before = (await req(ws.testKey, 'GET', '/v2/api-keys?limit=100')).body.total;
    const escalate = await req(key, 'POST', '/v2/api-keys', { label: 'escalated', scopes: ['withdrawals:write'] });
    expect([escalate.status, escalate.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const legacy = await req(key, 'POST', '/v2/api-keys', { label: 'legacy', permission: 'READ_WRITE' });
    expect([legacy.status, legacy.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    expect((await req(ws.testKey, 'GET', '/v2/api-keys?limit=100')).body.total).toBe(before);
    const ok = await req(key, 'POST', '/v2/api-keys', { label: 'sub', scopes: ['api_keys:read'] });
    expect(ok.status).toBe(201);
    const denied = await req({ keyId: ok.body.key_id, secret: ok.body.secret }, 'POST', '/v2/api-keys', { label: 'x', scopes: ['api_keys:read'] });
    expect([denied.status, denied.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });

  it('uses the legacy permission when scopes are omitted: READ_ONLY reads but cannot write', async () => {
    const res = await req(ws.testKey, 'POST', '/v2/api-keys', { label: 'ro', permission: 'READ_ONLY' });
    expect(res.body).toMatchObject({ scopes: [], permission: 'READ_ONLY' });
    const ro = { keyId: res.body.key_id, secret: res.body.secret };
    expect((await req(ro, 'GET', '/v2/api-keys')).status).toBe(200);
    const write = await req(ro, 'POST', '/v2/api-keys', { label: 'nope', permission: 'READ_ONLY' });
    expect([write.status, write.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });

  it('rejects bad input with VALIDATION_ERROR and creates nothing', async () => {
    const before = (await req(ws.testKey, 'GET', '/v2/api-keys?limit=100')).body.total;
    for (const body of [
      { label: 'x', scopes: ['wallets:admin'] },
      { label: 'x' },
      { scopes: ['wallets:read'] },
      { label: 'x', scopes: ['wallets:read'], allowed_ips: ['10.0.0.0/33'] },
      { label: 'x', scopes: ['wallets:read'], allowed_ips: ['not-an-ip'] },
      { label: 'x', scopes: ['wallets:read'], allowed_ips: ['010.0.0.1'] },
      { label: 'x\u0000', scopes: ['wallets:read'] },
      { label: 'x', scopes: ['wallets:read'], expires_at: '2001-01-01T00:00:00Z' },
      { label: 'x', scopes: ['wallets:read'], expires_at: 'tomorrow' },
      { label: 'x', scopes: ['wallets:read'], surprise: true },
      { label: 'x'.repeat(256), scopes: ['wallets:read'] },
      [],
      JSON.stringify('a JSON string, not an object'),
    ]) {
      const res = await req(ws.testKey, 'POST', '/v2/api-keys', body);
      expect([res.status, res.body.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect((await req(ws.testKey, 'GET', '/v2/api-keys?limit=100')).body.total).toBe(before);
  });

  it('an allowlisted key is refused from outside its CIDR (IPv4 or IPv6) with IP_NOT_ALLOWED, allowed from inside', async () => {
    const outside = await req(ws.testKey, 'POST', '/v2/api-keys', { label: 'ipv6 only', scopes: ['fees:read'], allowed_ips: ['2001:DB8::1/32'] });
    expect(outside.body.allowed_ips).toEqual(['2001:db8::/32']); // stored as the range it means
    const refused = await req({ keyId: outside.body.key_id, secret: 'not even the secret' }, 'GET', '/v2/chains');
    expect([refused.status, refused.body.code]).toEqual([403, 'IP_NOT_ALLOWED']);
    const inside = await req(ws.testKey, 'POST', '/v2/api-keys', { label: 'local', scopes: ['fees:read'], allowed_ips: ['127.0.0.0/8', '::1'] });
    expect((await req({ keyId: inside.body.key_id, secret: inside.body.secret }, 'GET', '/v2/chains')).status).toBe(200);
  });

  it('a restricted key can only create keys at least as restricted: allowlist and expiry inherited, never widened', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const parent = await req(ws.testKey, 'POST', '/v2/api-keys', {
      label: 'contractor',
      scopes: ['api_keys:write', 'fees:read'],
      allowed_ips: ['127.0.0.0/8'],
      expires_at: expiresAt,
    });
    const contractor = { keyId: parent.body.key_id, secret: parent.body.secret };
    const child = await req(contractor, 'POST', '/v2/api-keys', { label: 'child', scopes: ['fees:read'] });
    expect([child.status, child.body.allowed_ips, child.body.expires_at]).toEqual([201, ['127.0.0.0/8'], parent.body.expires_at]);
    const before = (await req(ws.testKey, 'GET', '/v2/api-keys?limit=100')).body.total;
    for (const body of [
      { label: 'anywhere', scopes: ['fees:read'], allowed_ips: ['0.0.0.0/0'] },
      { label: 'forever', scopes: ['fees:read'], expires_at: new Date(Date.now() + 7_200_000).toISOString() },
    ]) {
      const res = await req(contractor, 'POST', '/v2/api-keys', body);
      expect([res.status, res.body.code], body.label).toEqual([403, 'INSUFFICIENT_SCOPE']);
    }
    expect((await req(ws.testKey, 'GET', '/v2/api-keys?limit=100')).body.total).toBe(before);
  });

  it('an expired key gets API_KEY_EXPIRED', async () => {
    const res = await req(ws.testKey, 'POST', '/v2/api-keys', {
      label: 'short-lived',
      scopes: ['fees:read'],
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    const key = { keyId: res.body.key_id, secret: res.body.secret };
    expect((await req(key, 'GET', '/v2/chains')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const expired = await req(key, 'GET', '/v2/chains');
    expect([expired.status, expired.body.code]).toEqual([401, 'API_KEY_EXPIRED']);
  });
});

describe('GET /v2/api-keys', () => {
  it('pages through active keys newest first, and validates page and limit', async () => {
    const other = await createWorkspace(api, 'paging');
    for (let i = 0; i < 3; i++) await req(other.testKey, 'POST', '/v2/api-keys', { label: `k${i}`, scopes: ['fees:read'] });
    const first = await req(other.testKey, 'GET', '/v2/api-keys?page=1&limit=2');
    expect(first.body).toMatchObject({ total: 4, page: 1, limit: 2 });
    expect(first.body.data.map((k: { label: string }) => k.label)).toEqual(['k2', 'k1']);
    const second = await req(other.testKey, 'GET', '/v2/api-keys?page=2&limit=2');
    expect(second.body.data.map((k: { label: string }) => k.label)).toEqual(['k0', 'Initial test key']);
    const live = await req(other.liveKey, 'GET', '/v2/api-keys');
    expect(live.body.data.map((k: { label: string }) => k.label)).toEqual(['Initial live key']);
    for (const q of ['limit=0', 'limit=101', 'page=0', 'page=abc', 'limit=1.5']) {
      const bad = await req(other.testKey, 'GET', `/v2/api-keys?${q}`);
      expect([bad.status, bad.body.code], q).toEqual([400, 'VALIDATION_ERROR']);
    }
  });
});

describe('DELETE /v2/api-keys/{id}', () => {
  it('revokes a key: the very next request with it is INVALID_API_KEY and it is no longer listed', async () => {
    const res = await req(ws.testKey, 'POST', '/v2/api-keys', { label: 'doomed', scopes: ['fees:read'] });
    const doomed = { keyId: res.body.key_id, secret: res.body.secret };
    expect((await req(doomed, 'GET', '/v2/chains')).status).toBe(200);
    const del = await req(ws.testKey, 'DELETE', `/v2/api-keys/${res.body.id}`);
    expect(del.status).toBe(200);
    expect(typeof del.body.message).toBe('string');
    const next = await req(doomed, 'GET', '/v2/chains');
    expect([next.status, next.body.code]).toEqual([401, 'INVALID_API_KEY']);
    const list = await req(ws.testKey, 'GET', '/v2/api-keys?limit=100');
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(res.body.id);
  });

  it('answers 404 for an unknown id, a malformed id, another workspace key and a key of the other network', async () => {
    const other = await createWorkspace(api, 'stranger');
    const strangers = await req(other.testKey, 'GET', '/v2/api-keys');
    const liveList = await req(ws.liveKey, 'GET', '/v2/api-keys');
    for (const id of ['6f1c2b9e-1d5e-4a8b-9c1d-2e3f4a5b6c7d', 'not-a-uuid', strangers.body.data[0].id, liveList.body.data[0].id]) {
      const res = await req(ws.testKey, 'DELETE', `/v2/api-keys/${id}`);
      expect([res.status, res.body.code], id).toEqual([404, 'NOT_FOUND']);
    }
  });
});
