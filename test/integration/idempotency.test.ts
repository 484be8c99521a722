// Idempotency (docs/api.md#idempotency) against the real database, through POST
// /v2/customers over HTTP and the service directly.
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunIdempotently } from '../../src/application/idempotency/run-idempotently.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { SCOPES } from '../../src/domain/auth/scopes.js';
import { createWorkspace, uniqueCall, useTestApi, type TestApi } from '../support/harness.js';

const t = useTestApi();
let api: TestApi;
let ws: CreatedWorkspace;
beforeAll(() => {
  ({ api, ws } = t);
});

type Key = { keyId: string; secret: string };
const post = (body: string, idempotencyKey?: string, key: Key = ws.testKey, path = '/v2/customers') =>
  uniqueCall(api.baseUrl, key, 'POST', path, body, idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey });
const customer = (externalRef: string, extra: object = {}) => JSON.stringify({ external_ref: externalRef, ...extra });

/** The service called directly, as the test key would through POST /v2/customers. */
const call = (key: string) => ({
  principal: {
    workspaceId: ws.workspaceId,
    apiKeyId: 'test',
    keyId: ws.testKey.keyId,
    side: 'test' as const,
    scopes: new Set(SCOPES),
    restrictions: { allowedIps: [], expiresAt: null },
  },
  requiredScope: 'customers:write' as const,
  method: 'POST',
  path: '/v2/customers',
  key,
});

const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T>(text, params);
const countCustomers = async (externalRef: string) =>
  (await sql<{ n: number }[]>('select count(*)::int as n from customers where external_ref = ?', [externalRef]))[0]!.n;

describe('Idempotency-Key', () => {
  it('executes 50 parallel identical requests with one key exactly once', async () => {
    const body = customer('parallel');
    const results = await Promise.all(Array.from({ length: 50 }, () => post(body, 'parallel-key-1')));
    expect(await countCustomers('parallel')).toBe(1);
    const created = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replay') === null);
    expect(created).toHaveLength(1);
    for (const r of results) {
      if (r.status === 409) expect(r.body.code).toBe('IDEMPOTENCY_CONFLICT');
      else {
        expect(r.status).toBe(201);
        expect(r.body.id).toBe(created[0]!.body.id);
      }
    }
  });

  it('replays the original status and body byte for byte with Idempotent-Replay: true, whatever the key order and whitespace', async () => {
    const first = await post('{"external_ref":"replayed","metadata":{"b":1,"a":2}}', 'replay-key');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replay')).toBeNull();
    const again = await post('{ "metadata": { "a": 2, "b": 1 },\n  "external_ref": "replayed" }', 'replay-key');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(again.text).toBe(first.text); // byte for byte, key order included
    // The path as routed: a trailing slash reaches the same create and its keys.
    const slashed = await post('{"external_ref":"replayed","metadata":{"b":1,"a":2}}', 'replay-key', ws.testKey, '/v2/customers/');
    expect([slashed.status, slashed.headers.get('idempotent-replay'), slashed.text]).toEqual([201, 'true', first.text]);
    expect(await countCustomers('replayed')).toBe(1);
  });

  it('answers 422 IDEMPOTENCY_MISMATCH to the same key with a different body, changing nothing', async () => {
    await post(customer('mismatch'), 'mismatch-key');
    const other = await post(customer('mismatch-2'), 'mismatch-key');
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_MISMATCH']);
    expect(await countCustomers('mismatch-2')).toBe(0);
  });

  it('answers 409 IDEMPOTENCY_CONFLICT while the first request with the key is in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const runner = api.infra.container.resolve(RunIdempotently);
    const scope = call('inflight-key');
    // What the operation answers: a customer, as the document describes one.
    const held = { id: '5d6f2f4e-2b1c-4a8e-9f00-1c2d3e4f5a6b', external_ref: 'inflight', label: 'held', metadata: null, status: 'ACTIVE', created_at: '2026-11-23T10:00:00.000Z', updated_at: '2026-11-23T10:00:00.000Z' };
    const first = runner.execute(
      scope,
      { external_ref: 'inflight' },
      async () => {
        started();
        await gate;
        return { status: 201, body: JSON.stringify(held) };
      },
      () => null,
    );
    await running;
    const second = await post(customer('inflight'), 'inflight-key');
    expect([second.status, second.body.code]).toEqual([409, 'IDEMPOTENCY_CONFLICT']);
    release();
    expect((await first).replayed).toBe(false);
    const third = await post(customer('inflight'), 'inflight-key');
    expect([third.status, third.headers.get('idempotent-replay')]).toEqual([201, 'true']);
    expect(third.body).toEqual(held);
  });

  it('sees the record of a first request that committed while the second statement was already running (the claim looks after the lock)', async () => {
    // The second statement's snapshot is taken before the first transaction commits: it waits for lock 35, which
    // the first holds at session level and lets go only once its commit has released everything, then claims. A
    // lookup on the statement's own snapshot misses the record; the claim does not.
    const scope = [`claim-${Date.now()}`, ws.workspaceId, 'test', 'POST', '/v2/customers', 'claim-race'];
    const [first, second, third] = [0, 1, 2].map(() => new pg.Client({ connectionString: t.db.url }));
    await Promise.all([first!.connect(), second!.connect(), third!.connect()]);
    try {
      await first!.query('select pg_advisory_lock(35)');
      await first!.query('begin');
      await first!.query('select * from idempotency_claim($1, $2, $3, $4, $5, $6, now())', scope);
      await first!.query(
        `insert into idempotency_keys (workspace_id, side, method, path, key, fingerprint, response_status, response_body, created_at, expires_at)
         values ($1, 'test', 'POST', '/v2/customers', 'claim-race', 'f', 201, '{}', now(), now() + interval '1 day')`,
        [ws.workspaceId],
      );
      const after = (client: pg.Client, lookup: string) =>
        client.query<{ locked: boolean; fingerprint: string | null }>(
          `select c.* from (select pg_advisory_xact_lock(35)::text as waited) w cross join lateral (${lookup}) c`,
          [...scope.slice(0, 5), `${scope[5]}`],
        );
      const claimed = after(second!, `select * from idempotency_claim($1, $2, $3, $4, $5, $6 || w.waited, now())`);
      const plain = after(third!, `select true as locked, (select fingerprint from idempotency_keys where workspace_id = $2 and key = $6 || w.waited and $1 <> '' and $3 <> '' and $4 <> '' and $5 <> '') as fingerprint`);
      await new Promise((r) => setTimeout(r, 300));
      await first!.query('commit');
      await first!.query('select pg_advisory_unlock(35)');
      expect((await claimed).rows).toEqual([{ locked: true, fingerprint: 'f', response_status: 201, response_body: '{}', created_at: expect.any(Date), expires_at: expect.any(Date) }]);
      expect((await plain).rows).toEqual([{ locked: true, fingerprint: null }]);
    } finally {
      await Promise.all([first!.end(), second!.end(), third!.end()]);
    }
  });

  it('leaves no key behind when the operation fails unexpectedly, so a retry executes', async () => {
    const runner = api.infra.container.resolve(RunIdempotently);
    const scope = call('crash-key');
    await expect(
      runner.execute(scope, { external_ref: 'crash' }, async () => {
        throw new Error('process died mid-operation');
      }, () => null),
    ).rejects.toThrow('process died');
    const retry = await post(customer('crash'), 'crash-key');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replay')).toBeNull();
  });

  it('remembers a business rejection for the key: the replay carries the same error', async () => {
    await post(customer('taken'));
    const first = await post(customer('taken'), 'rejected-key');
    expect([first.status, first.body.code]).toEqual([409, 'CONFLICT']);
    const replay = await post(customer('taken'), 'rejected-key');
    expect([replay.status, replay.body.code, replay.headers.get('idempotent-replay')]).toEqual([409, 'CONFLICT', 'true']);
    expect(await countCustomers('taken')).toBe(1);
  });

  it('does not remember a request refused as invalid: fixed, it executes under the same key', async () => {
    const bad = await post(customer('fixed-later', { label: 'x'.repeat(256) }), 'fix-key');
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const good = await post(customer('fixed-later'), 'fix-key');
    expect([good.status, good.headers.get('idempotent-replay')]).toEqual([201, null]);
  });

  it('never replays to a key that lacks the scope to make the request itself', async () => {
    const original = await post(customer('owned'), 'scope-key');
    expect(original.status).toBe(201);
    const minted = await post(JSON.stringify({ label: 'reader', scopes: ['customers:read'] }), undefined, ws.testKey, '/v2/api-keys');
    const reader = { keyId: minted.body.key_id, secret: minted.body.secret };
    const replay = await post(customer('owned'), 'scope-key', reader);
    expect([replay.status, replay.body.code, replay.headers.get('idempotent-replay')]).toEqual([403, 'INSUFFICIENT_SCOPE', null]);
    expect(replay.text).not.toContain(original.body.id);
  });

  it('keeps no replay of POST /v2/api-keys, which is not idempotent: a secret is never stored in clear', async () => {
    const body = JSON.stringify({ label: 'not-replayed', scopes: ['fees:read'] });
    const a = await post(body, 'api-key-create', ws.testKey, '/v2/api-keys');
    const b = await post(body, 'api-key-create', ws.testKey, '/v2/api-keys');
    expect([a.status, b.status, b.headers.get('idempotent-replay')]).toEqual([201, 201, null]);
    expect(b.body.id).not.toBe(a.body.id);
    const stored = await sql<{ n: number }[]>(`select count(*)::int as n from idempotency_keys where path = '/v2/api-keys' or response_body like ?`, [
      `%${a.body.secret}%`,
    ]);
    expect(stored[0]!.n).toBe(0);
  });

  it('scopes keys per workspace and network: the same key on another workspace or the live side executes anew', async () => {
    const other = await createWorkspace(api, 'other');
    const body = customer('scoped');
    const results = [await post(body, 'shared-key'), await post(body, 'shared-key', other.testKey), await post(body, 'shared-key', ws.liveKey)];
    expect(results.map((r) => [r.status, r.headers.get('idempotent-replay')])).toEqual([
      [201, null],
      [201, null],
      [201, null],
    ]);
    expect(await countCustomers('scoped')).toBe(3);
  });

  it('answers 400 IDEMPOTENCY_KEY_INVALID to a malformed key and creates nothing', async () => {
    for (const bad of ['', 'has space', 'é', 'x'.repeat(256), 'semi;colon']) {
      const res = await post(customer('invalid-key'), bad);
      expect([res.status, res.body.code], JSON.stringify(bad)).toEqual([400, 'IDEMPOTENCY_KEY_INVALID']);
    }
    expect(await countCustomers('invalid-key')).toBe(0);
    const longest = await post(customer('longest-key'), 'k'.repeat(255));
    expect(longest.status).toBe(201);
  });

  it('forgets keys after 24 hours: the purge removes expired records', async () => {
    await post(customer('old'), 'old-key');
    await sql(`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'old-key'`);
    // Forgotten: another body under the same key is a new request, not a mismatch.
    const again = await post(customer('old-2'), 'old-key');
    expect([again.status, again.headers.get('idempotent-replay')]).toEqual([201, null]);
    await sql(`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'old-key'`);
    const { PurgeIdempotencyKeys } = await import('../../src/application/maintenance/purge-idempotency-keys.js');
    expect(await api.infra.container.resolve(PurgeIdempotencyKeys).execute()).toBeGreaterThanOrEqual(1);
    expect((await sql<{ n: number }[]>(`select count(*)::int as n from idempotency_keys where key = 'old-key'`))[0]!.n).toBe(0);
  });
});
