// The per-key rate limit (docs/api.md#limits) across two api processes sharing
// the database, last_used_at, and the client address behind a trusted proxy
// (TRUST_PROXY).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { authHeaders } from '../../src/sdk/signing.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { call, createWorkspace, startTestApi, testConfig } from '../support/harness.js';

let db: TestDatabase;
let api: Awaited<ReturnType<typeof startTestApi>>;
let api2: Awaited<ReturnType<typeof startTestApi>>;
let proxied: Awaited<ReturnType<typeof startTestApi>>;
let ws: CreatedWorkspace;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url));
  api2 = await startTestApi(testConfig(db.url));
  proxied = await startTestApi(testConfig(db.url, { TRUST_PROXY: 'loopback' }));
  ws = await createWorkspace(api);
});

afterAll(async () => {
  await Promise.all([api?.close(), api2?.close(), proxied?.close()]);
  await db?.drop();
});

const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T>(text, params);

describe('rate limit per API key', () => {
  it('lets about 100 of 300 requests in one second through, across two api processes; the rest get 429 with Retry-After', async () => {
    const other = await createWorkspace(api, 'busy');
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        call(i % 2 === 0 ? api.baseUrl : api2.baseUrl, other.testKey, { path: `/v2/chains?i=${i}` }),
      ),
    );
    const elapsed = (Date.now() - started) / 1000;
    const passed = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429);
    expect(passed + limited.length).toBe(300);
    // A burst of 100, plus 50 per second for however long the 300 took.
    expect(passed).toBeGreaterThanOrEqual(100);
    expect(passed).toBeLessThanOrEqual(100 + Math.ceil(elapsed * 50) + 2);
    for (const r of limited) {
      expect(r.body.code).toBe('RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('keeps the bucket in the database: a restarted api process does not reset it', async () => {
    const slow = { RATE_LIMIT_PER_SECOND: '0.2', RATE_LIMIT_BURST: '5' };
    const first = await startTestApi(testConfig(db.url, slow));
    const other = await createWorkspace(first, 'restart');
    for (let i = 0; i < 5; i++) expect((await call(first.baseUrl, other.testKey, { path: `/v2/chains?r=${i}` })).status).toBe(200);
    await first.close();
    const fresh = await startTestApi(testConfig(db.url, slow));
    try {
      const res = await call(fresh.baseUrl, other.testKey, { path: '/v2/chains?after-restart' });
      expect(res.status).toBe(429);
    } finally {
      await fresh.close();
    }
  });
});

describe('last_used_at', () => {
  it('is set on use, without a write on every request', async () => {
    const other = await createWorkspace(api, 'usage');
    const before = await sql<{ last_used_at: Date | null }[]>(`select last_used_at from api_keys where key_id = ?`, [other.testKey.keyId]);
    expect(before[0]!.last_used_at).toBeNull();
    await call(api.baseUrl, other.testKey, { path: '/v2/chains?u=1' });
    const first = (await sql<{ last_used_at: string; xmin: string }[]>(`select last_used_at, xmin from api_keys where key_id = ?`, [other.testKey.keyId]))[0]!;
    expect(first.last_used_at).not.toBeNull();
    await call(api.baseUrl, other.testKey, { path: '/v2/chains?u=2' });
    const second = (await sql<{ last_used_at: string; xmin: string }[]>(`select last_used_at, xmin from api_keys where key_id = ?`, [other.testKey.keyId]))[0]!;
    expect(second.xmin).toBe(first.xmin);
    const listed = await call(api.baseUrl, other.testKey, { path: '/v2/api-keys' });
    const me = listed.body.data.find((k: { key_id: string }) => k.key_id === other.testKey.keyId);
    expect(me.last_used_at).toBe(new Date(first.last_used_at).toISOString());
  });
});

describe('source address behind a proxy (TRUST_PROXY)', () => {
  let n = 0;
  async function allowlisted(cidr: string) {
    const res = await call(api.baseUrl, ws.testKey, {
      method: 'POST',
      path: `/v2/api-keys?n=${++n}`,
      body: JSON.stringify({ label: `allow ${cidr}`, scopes: ['fees:read'], allowed_ips: [cidr] }),
    });
    return { keyId: res.body.key_id as string, secret: res.body.secret as string };
  }

  const viaProxy = async (baseUrl: string, key: { keyId: string; secret: string }, forwardedFor: string, n: number) => {
    const path = `/v2/chains?p=${n}`;
    const res = await fetch(baseUrl + path, {
      headers: { ...authHeaders(key.keyId, { secret: key.secret, method: 'GET', path }), 'X-Forwarded-For': forwardedFor },
    });
    return { status: res.status, code: ((await res.json()) as { code?: string }).code };
  };

  it('uses the address a trusted proxy reports when TRUST_PROXY trusts it', async () => {
    const key = await allowlisted('198.51.100.0/24');
    expect(await viaProxy(proxied.baseUrl, key, '198.51.100.23', 1)).toEqual({ status: 200, code: undefined });
    expect(await viaProxy(proxied.baseUrl, key, '203.0.113.9', 2)).toEqual({ status: 403, code: 'IP_NOT_ALLOWED' });
    const v6 = await allowlisted('2001:db8:abcd::/48');
    expect((await viaProxy(proxied.baseUrl, v6, '2001:db8:abcd:12::1', 3)).status).toBe(200);
  });

  it('ignores X-Forwarded-For by default: the socket address decides', async () => {
    const key = await allowlisted('198.51.100.0/24');
    expect(await viaProxy(api.baseUrl, key, '198.51.100.23', 4)).toEqual({ status: 403, code: 'IP_NOT_ALLOWED' });
  });
});
