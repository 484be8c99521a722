// Authentication, body checks and error bodies over real HTTP against the real
// database, with two api processes sharing it.
import { once } from 'node:events';
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_VERSION_SQL } from '../../src/adapters/persistence/credential-version.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { SetWorkspaceStatus } from '../../src/application/workspaces/set-workspace-status.js';
import { authHeaders } from '../../src/sdk/signing.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { call, createWorkspace, startTestApi, testConfig } from '../support/harness.js';

let db: TestDatabase;
let api: Awaited<ReturnType<typeof startTestApi>>;
let api2: Awaited<ReturnType<typeof startTestApi>>;
let ws: CreatedWorkspace;
let test: { keyId: string; secret: string };
let live: { keyId: string; secret: string };

beforeAll(async () => {
  db = await createTestDatabase();
  const config = testConfig(db.url);
  api = await startTestApi(config);
  api2 = await startTestApi(config);
  ws = await createWorkspace(api);
  test = ws.testKey;
  live = ws.liveKey;
});

afterAll(async () => {
  await api?.close();
  await api2?.close();
  await db?.drop();
});

const sql = (text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute(text, params);

describe('GET /v2/chains', () => {
  it('lists the testnets with their assets for a test key', async () => {
    const res = await call(api.baseUrl, test, { path: '/v2/chains' });
    expect(res.status).toBe(200);
    const chains = res.body.data.map((c: { chain: string }) => c.chain).sort();
    expect(chains).toEqual(['BSC_TESTNET', 'ETH_TESTNET', 'TRON_TESTNET']);
    const eth = res.body.data.find((c: { chain: string }) => c.chain === 'ETH_TESTNET');
    // In the sandbox the testnets are on from the start (docs/operations.md#networks).
    expect(eth).toMatchObject({ base_chain: 'ETH', required_confirmations: 6, enabled: true });
    expect(eth.assets).toContainEqual({ asset: 'ETH', decimals: 18, chain_decimals: 18, contract_address: null });
    const bsc = res.body.data.find((c: { chain: string }) => c.chain === 'BSC_TESTNET');
    // The sandbox's tokens, at the addresses its local chains deploy them to (ADR 0013).
    expect(bsc.assets).toContainEqual({ asset: 'USDT_BSC', decimals: 6, chain_decimals: 18, contract_address: '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35' });
    expect(eth.assets.map((a: { asset: string }) => a.asset).sort()).toEqual(['ETH', 'EURC_ETH', 'USDC_ETH', 'USDT_ETH']);
    const tron = res.body.data.find((c: { chain: string }) => c.chain === 'TRON_TESTNET');
    expect(tron.assets).toEqual([{ asset: 'USDT_TRON', decimals: 6, chain_decimals: 6, contract_address: 'TLBeMi7NQkKVvLbGLHArkb3V17TrWTuNYq' }]);
    // contract_address is null for the native assets only (docs/api.md#chains).
    for (const chain of res.body.data as { assets: { asset: string; contract_address: string | null }[] }[]) {
      for (const a of chain.assets) expect(a.contract_address === null).toBe(['ETH', 'BNB', 'TRX'].includes(a.asset));
    }
  });

  it('lists the mainnets for a live key, disabled while they have no node URL', async () => {
    const res = await call(api.baseUrl, live, { path: '/v2/chains' });
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { chain: string }) => c.chain).sort()).toEqual(['BSC_MAINNET', 'ETH_MAINNET', 'TRON_MAINNET']);
    expect(res.body.data.every((c: { enabled: boolean }) => c.enabled === false)).toBe(true);
    const tron = res.body.data.find((c: { chain: string }) => c.chain === 'TRON_MAINNET');
    expect(tron.assets).toEqual([
      { asset: 'USDT_TRON', decimals: 6, chain_decimals: 6, contract_address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
    ]);
  });
});

describe('authentication over HTTP', () => {
  it('answers 401 MISSING_AUTH_HEADERS to an unsigned request, with an X-Request-Id', async () => {
    const res = await fetch(`${api.baseUrl}/v2/chains`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: expect.any(String), code: 'MISSING_AUTH_HEADERS' });
    expect(res.headers.get('x-request-id')).toMatch(/.{8,}/);
  });

  it('signs over the exact path with its query string', async () => {
    const ok = await call(api.baseUrl, test, { path: '/v2/chains?page=1&limit=5' });
    expect(ok.status).toBe(200);
    const headers = authHeaders(test.keyId, { secret: test.secret, method: 'GET', path: '/v2/chains' });
    const res = await fetch(`${api.baseUrl}/v2/chains?page=1`, { headers });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('INVALID_SIGNATURE');
  });

  it('answers 401 TIMESTAMP_EXPIRED to a request signed ten minutes ago', async () => {
    const old = String(Math.floor(Date.now() / 1000) - 600);
    const res = await call(api.baseUrl, test, { path: '/v2/chains', timestamp: old });
    expect([res.status, res.body.code]).toEqual([401, 'TIMESTAMP_EXPIRED']);
  });

  it('answers 401 INVALID_API_KEY to an unknown key', async () => {
    const res = await call(api.baseUrl, { keyId: 'sk_test_unknown', secret: 'x' }, { path: '/v2/chains' });
    expect([res.status, res.body.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it('detects a replay across two api processes sharing the database', async () => {
    const headers = authHeaders(test.keyId, { secret: test.secret, method: 'GET', path: '/v2/chains?replay=1' });
    const first = await fetch(`${api.baseUrl}/v2/chains?replay=1`, { headers });
    expect(first.status).toBe(200);
    const second = await fetch(`${api2.baseUrl}/v2/chains?replay=1`, { headers });
    expect(second.status).toBe(401);
    expect(((await second.json()) as { code: string }).code).toBe('REPLAY_DETECTED');
  });

  it('answers 401 API_KEY_EXPIRED for a key past expires_at', async () => {
    const other = await createWorkspace(api, 'expiring');
    await sql(`update api_keys set expires_at = now() - interval '1 second' where key_id = ?`, [other.testKey.keyId]);
    const res = await call(api.baseUrl, other.testKey, { path: '/v2/chains' });
    expect([res.status, res.body.code]).toEqual([401, 'API_KEY_EXPIRED']);
  });

  it('rejects a revoked key on its very next request, in every api process', async () => {
    const other = await createWorkspace(api, 'revoked');
    expect((await call(api2.baseUrl, other.testKey, { path: '/v2/chains' })).status).toBe(200);
    await sql(`update api_keys set revoked_at = now() where key_id = ?`, [other.testKey.keyId]);
    const res = await call(api2.baseUrl, other.testKey, { path: '/v2/chains' });
    expect([res.status, res.body.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it('holds every change to a key the api already read from the next request: expiry, scopes, workspace, allowlist (ADR 0008)', async () => {
    const other = await createWorkspace(api, 'kept');
    const chains = (q: string) => call(api2.baseUrl, other.testKey, { path: `/v2/chains?${q}` });
    expect((await chains('warm')).status).toBe(200);
    await sql(`update api_keys set expires_at = now() - interval '1 second' where key_id = ?`, [other.testKey.keyId]);
    expect((await chains('expired')).body.code).toBe('API_KEY_EXPIRED');
    await sql(`update api_keys set expires_at = null where key_id = ?`, [other.testKey.keyId]);
    expect((await chains('extended')).status).toBe(200);
    await sql(`update api_keys set scopes = '{fees:read}' where key_id = ?`, [other.testKey.keyId]);
    const wallets = await call(api2.baseUrl, other.testKey, { path: '/v2/wallets?narrowed' });
    expect([wallets.status, wallets.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    await sql(`update api_keys set allowed_ips = '{10.0.0.0/8}' where key_id = ?`, [other.testKey.keyId]);
    expect((await chains('ip')).body.code).toBe('IP_NOT_ALLOWED');
    await sql(`update api_keys set allowed_ips = '{}' where key_id = ?`, [other.testKey.keyId]);
    expect((await chains('ip-widened')).status).toBe(200);
    await sql(`update workspaces set status = 'INACTIVE' where id = ?`, [other.workspaceId]);
    expect((await chains('inactive')).body.code).toBe('WORKSPACE_INACTIVE');
    // A refused request whose kept key no longer matched recorded nothing: its signature is not a replay afterwards.
    await sql(`update workspaces set status = 'ACTIVE' where id = ?`, [other.workspaceId]);
    await sql(`update api_keys set revoked_at = now() where key_id = ?`, [other.testKey.keyId]);
    const headers = authHeaders(other.testKey.keyId, { secret: other.testKey.secret, method: 'GET', path: '/v2/chains?once' });
    expect((await fetch(`${api2.baseUrl}/v2/chains?once`, { headers })).status).toBe(401);
    await sql(`update api_keys set revoked_at = null where key_id = ?`, [other.testKey.keyId]);
    expect((await fetch(`${api2.baseUrl}/v2/chains?once`, { headers })).status).toBe(200);
  });

  it("computes a key's version alike in every session time zone and date style (the pool's connections may differ)", async () => {
    const other = await createWorkspace(api, 'time-zones');
    await sql(`update api_keys set expires_at = now() + interval '1 day' where key_id = ?`, [other.testKey.keyId]);
    const versions: string[] = [];
    for (const setting of ["timezone = 'UTC'", "timezone = 'Asia/Tokyo'", "datestyle = 'SQL, DMY'"]) {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        await client.query(`set ${setting}`);
        const { rows } = await client.query<{ v: string }>(
          `select ${CREDENTIAL_VERSION_SQL} as v from api_keys k left join workspaces w on w.id = k.workspace_id where k.key_id = $1`,
          [other.testKey.keyId],
        );
        versions.push(rows[0]!.v);
      } finally {
        await client.end();
      }
    }
    expect(new Set(versions).size).toBe(1);
  });

  it('answers 403 IP_NOT_ALLOWED before checking the signature, and lets an allowed IPv4 or IPv6 range in', async () => {
    const other = await createWorkspace(api, 'allowlisted');
    await sql(`update api_keys set allowed_ips = '{10.0.0.0/8,2001:db8::/32}' where key_id = ?`, [other.testKey.keyId]);
    const bad = await call(api.baseUrl, { keyId: other.testKey.keyId, secret: 'wrong' }, { path: '/v2/chains' });
    expect([bad.status, bad.body.code]).toEqual([403, 'IP_NOT_ALLOWED']);
    await sql(`update api_keys set allowed_ips = '{127.0.0.0/8}' where key_id = ?`, [other.testKey.keyId]);
    expect((await call(api.baseUrl, other.testKey, { path: '/v2/chains' })).status).toBe(200);
    await sql(`update api_keys set allowed_ips = '{::1/128}' where key_id = ?`, [other.testKey.keyId]);
    const v4 = await call(api.baseUrl, other.testKey, { path: '/v2/chains?v=4' });
    expect(v4.body.code).toBe('IP_NOT_ALLOWED');
  });

  it('answers 403 WORKSPACE_INACTIVE once the workspace is deactivated, and lets it back in when re-activated', async () => {
    const other = await createWorkspace(api, 'inactive');
    const set = api.infra.container.resolve(SetWorkspaceStatus);
    await set.execute({ workspaceId: other.workspaceId, status: 'INACTIVE' });
    const res = await call(api.baseUrl, other.testKey, { path: '/v2/chains' });
    expect([res.status, res.body.code]).toEqual([403, 'WORKSPACE_INACTIVE']);
    await set.execute({ workspaceId: other.workspaceId, status: 'ACTIVE' });
    expect((await call(api.baseUrl, other.testKey, { path: '/v2/chains?again=1' })).status).toBe(200);
  });

  it('never stores a key secret in clear', async () => {
    const rows = await sql(`select secret_ciphertext from api_keys`);
    const all = JSON.stringify(rows);
    expect(all).not.toContain(test.secret);
    expect(all).not.toContain(live.secret);
  });
});

describe('request bodies and errors', () => {
  it('answers 415 to a body that is not application/json', async () => {
    const res = await call(api.baseUrl, test, { method: 'POST', path: '/v2/customers', body: 'a=b', headers: { 'Content-Type': 'text/plain' } });
    expect([res.status, res.body.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('answers 400 INVALID_JSON to malformed JSON on a route, and 404 on no route (a body is read only for a route)', async () => {
    const res = await call(api.baseUrl, test, { method: 'POST', path: '/v2/customers', body: '{"a":' });
    expect([res.status, res.body.code]).toEqual([400, 'INVALID_JSON']);
    const nowhere = await call(api.baseUrl, test, { method: 'POST', path: '/v2/no-such-route', body: '{"a":' });
    expect([nowhere.status, nowhere.body.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('answers 413 PAYLOAD_TOO_LARGE to a body over 64 KiB', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(70 * 1024) });
    const res = await call(api.baseUrl, test, { method: 'POST', path: '/v2/chains', body });
    expect([res.status, res.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('answers oversized headers (431) and malformed HTTP (400) with the JSON error body too', async () => {
    const raw = async (request: string) => {
      const socket = connect(api.port, '127.0.0.1');
      await once(socket, 'connect');
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      const closed = once(socket, 'close');
      socket.write(request);
      await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
      socket.destroy();
      const [head, body] = answer.split('\r\n\r\n');
      return { statusLine: head!.split('\r\n')[0], body: JSON.parse(body!) as unknown };
    };
    const big = await raw(`GET /v2/chains HTTP/1.1\r\nHost: x\r\nX-Service-Signature: ${'a'.repeat(100_000)}\r\n\r\n`);
    expect(big).toEqual({ statusLine: 'HTTP/1.1 431 Request Header Fields Too Large', body: { error: expect.any(String), code: 'PAYLOAD_TOO_LARGE' } });
    const malformed = await raw('GARBAGE\r\n\r\n');
    expect(malformed).toEqual({ statusLine: 'HTTP/1.1 400 Bad Request', body: { error: expect.any(String), code: 'VALIDATION_ERROR' } });
    const hostless = await raw('GET /v2/chains HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(hostless).toEqual({ statusLine: 'HTTP/1.1 400 Bad Request', body: { error: expect.any(String), code: 'VALIDATION_ERROR' } });
    // HTTP/1.0 made Host optional; the API does not: 400 before authentication (it was 401).
    const hostless10 = await raw('GET /v2/chains HTTP/1.0\r\n\r\n');
    expect(hostless10).toEqual({ statusLine: 'HTTP/1.1 400 Bad Request', body: { error: expect.any(String), code: 'VALIDATION_ERROR' } });
    // A load balancer's health check (HAProxy's default is HTTP/1.0 without Host) is answered.
    const health = await raw('GET /healthz HTTP/1.0\r\n\r\n');
    expect(health.statusLine).toBe('HTTP/1.1 200 OK');
    const expecting = await raw('GET /v2/chains HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n');
    expect(expecting).toEqual({ statusLine: 'HTTP/1.1 417 Expectation Failed', body: { error: expect.any(String), code: 'VALIDATION_ERROR' } });
    const tunnel = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(tunnel).toEqual({ statusLine: 'HTTP/1.1 404 Not Found', body: { error: expect.any(String), code: 'NOT_FOUND' } });
  });

  it('matches routes case-sensitively and answers no OPTIONS of its own', async () => {
    for (const path of ['/v2/CHAINS', '/V2/chains', '/v2/Customers']) {
      const res = await call(api.baseUrl, test, { path });
      expect([res.status, res.body.code], path).toEqual([404, 'NOT_FOUND']);
    }
    const options = await call(api.baseUrl, test, { method: 'OPTIONS', path: '/v2/customers' });
    expect([options.status, options.body.code]).toEqual([404, 'NOT_FOUND']);
    const metrics = await (await fetch(`${api.baseUrl}/metrics`)).text();
    expect(metrics).not.toMatch(/route="[^"]*(CHAINS|Customers|V2)/);
  });

  it('refuses a body declared larger than 64 KiB at once, without reading it', async () => {
    const socket = connect(api.port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    const closed = once(socket, 'close');
    socket.write(
      'POST /v2/chains HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n{"a":',
    );
    const started = Date.now();
    await Promise.race([closed, new Promise((r) => setTimeout(r, 3000))]);
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain('PAYLOAD_TOO_LARGE');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('answers 404 NOT_FOUND as JSON to an unknown route, under /v2 and elsewhere', async () => {
    const res = await call(api.baseUrl, test, { method: 'POST', path: '/v2/no-such-route', body: '{}' });
    expect([res.status, res.body.code]).toEqual([404, 'NOT_FOUND']);
    const outside = await fetch(`${api.baseUrl}/nope`);
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as { code: string }).code).toBe('NOT_FOUND');
  });

  it('serves /healthz, /readyz and /metrics with the request duration histogram', async () => {
    expect((await fetch(`${api.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${api.baseUrl}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${api.baseUrl}/metrics`)).text();
    expect(metrics).toContain('process_cpu_user_seconds_total');
    expect(metrics).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/v2\/chains"[^}]*status="200"/);
  });

  it('labels failed requests by their full route too', async () => {
    const missing = await call(api.baseUrl, test, { method: 'DELETE', path: '/v2/api-keys/00000000-0000-4000-8000-000000000000' });
    expect(missing.status).toBe(404);
    const invalid = await call(api.baseUrl, test, { method: 'POST', path: '/v2/customers', body: '{}' });
    expect(invalid.status).toBe(400);
    const metrics = await (await fetch(`${api.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/http_request_duration_seconds_count\{[^}]*method="DELETE",route="\/v2\/api-keys\/:id",status="404"\}/);
    expect(metrics).toMatch(/http_request_duration_seconds_count\{[^}]*method="POST",route="\/v2\/customers",status="400"\}/);
    expect(metrics).not.toMatch(/route="\/(:id)?"/);
  });

  it('names the route a request refused at authentication was for, never the path as sent', async () => {
    const bad = { keyId: test.keyId, secret: 'not-the-secret' };
    const refused = await call(api.baseUrl, bad, { method: 'GET', path: '/v2/withdrawals/11111111-2222-4333-8444-555555555555' });
    expect(refused.status).toBe(401);
    expect((await fetch(`${api.baseUrl}/v2/balances`)).status).toBe(401);
    const metrics = await (await fetch(`${api.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/http_request_duration_seconds_count\{[^}]*method="GET",route="\/v2\/withdrawals\/:id",status="401"\}/);
    expect(metrics).toMatch(/http_request_duration_seconds_count\{[^}]*method="GET",route="\/v2\/balances",status="401"\}/);
    expect(metrics).not.toContain('11111111-2222');
    // A path no route declares stays unmatched: a client cannot mint labels.
    expect((await fetch(`${api.baseUrl}/v2/nothing-here/123`)).status).toBe(401);
    expect(await (await fetch(`${api.baseUrl}/metrics`)).text()).not.toContain('nothing-here');
  });
});

describe('unexpected failures', () => {
  it('answers 500 INTERNAL_ERROR with no SQL or stack in the body, and the request id in a header', async () => {
    await sql('alter table api_keys rename to api_keys_hidden');
    try {
      const res = await call(api.baseUrl, test, { path: '/v2/chains?broken=1' });
      expect(res.status).toBe(500);
      expect(Object.keys(res.body).sort()).toEqual(['code', 'error']);
      expect(res.body.code).toBe('INTERNAL_ERROR');
      expect(res.text).not.toMatch(/api_keys|select|at .*\.ts|relation/i);
      expect(res.body.error).toContain(res.headers.get('x-request-id'));
    } finally {
      await sql('alter table api_keys_hidden rename to api_keys');
    }
  });
});
