// Idempotency (contract 4.1) against the real database, through the first
// create that uses it over HTTP (POST /v2/api-keys) and the service directly.
import { beforeAll, describe, expect, it } from 'vitest';
import { RunIdempotently } from '../../src/application/idempotency/run-idempotently.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { createWorkspace, uniqueCall, useTestApi, type TestApi } from '../support/harness.js';

const t = useTestApi();
let api: TestApi;
let ws: CreatedWorkspace;
beforeAll(() => {
  ({ api, ws } = t);
});

const post = (body: string, idempotencyKey?: string, key = ws.testKey) =>
  uniqueCall(api.baseUrl, key, 'POST', '/v2/api-keys', body, idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey });

const countKeys = async (label: string) =>
  (await api.infra.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from api_keys where label = ?', [label]))[0]!.n;

describe('Idempotency-Key', () => {
  it('executes 50 parallel identical requests with one key exactly once', async () => {
    const body = JSON.stringify({ label: 'parallel', scopes: ['fees:read'] });
    const results = await Promise.all(Array.from({ length: 50 }, () => post(body, 'parallel-key-1')));
    expect(await countKeys('parallel')).toBe(1);
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

  it('replays the original status and body with Idempotent-Replay: true, whatever the key order and whitespace', async () => {
    const first = await post('{"label":"replayed","scopes":["fees:read"]}', 'replay-key');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replay')).toBeNull();
    const again = await post('{ "scopes": [ "fees:read" ],\n  "label": "replayed" }', 'replay-key');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replay')).toBe('true');
    expect(again.text).toBe(first.text); // byte for byte, key order included
    expect(await countKeys('replayed')).toBe(1);
  });

  it('answers 422 IDEMPOTENCY_MISMATCH to the same key with a different body, changing nothing', async () => {
    await post(JSON.stringify({ label: 'mismatch', scopes: ['fees:read'] }), 'mismatch-key');
    const other = await post(JSON.stringify({ label: 'mismatch-2', scopes: ['fees:read'] }), 'mismatch-key');
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_MISMATCH']);
    expect(await countKeys('mismatch-2')).toBe(0);
  });

  it('answers 409 IDEMPOTENCY_CONFLICT while the first request with the key is in flight', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const runner = api.infra.container.resolve(RunIdempotently);
    const scope = { workspaceId: ws.workspaceId, side: 'test' as const, method: 'POST', path: '/v2/api-keys', key: 'inflight-key' };
    const first = runner.execute(
      scope,
      { label: 'inflight' },
      async () => {
        started();
        await gate;
        return { status: 201, body: '{"held":true}' };
      },
      () => null,
    );
    await running;
    const second = await post(JSON.stringify({ label: 'inflight' }), 'inflight-key');
    expect([second.status, second.body.code]).toEqual([409, 'IDEMPOTENCY_CONFLICT']);
    release();
    expect((await first).replayed).toBe(false);
    const third = await post(JSON.stringify({ label: 'inflight' }), 'inflight-key');
    expect([third.status, third.headers.get('idempotent-replay')]).toEqual([201, 'true']);
    expect(third.body).toEqual({ held: true });
  });

  it('leaves no key behind when the operation fails unexpectedly, so a retry executes', async () => {
    const runner = api.infra.container.resolve(RunIdempotently);
    const scope = { workspaceId: ws.workspaceId, side: 'test' as const, method: 'POST', path: '/v2/api-keys', key: 'crash-key' };
    await expect(
      runner.execute(scope, { label: 'crash' }, async () => {
        throw new Error('process died mid-operation');
      }, () => null),
    ).rejects.toThrow('process died');
    const retry = await post(JSON.stringify({ label: 'crash', scopes: ['fees:read'] }), 'crash-key');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replay')).toBeNull();
  });

  it('remembers a business rejection for the key: the replay carries the same error', async () => {
    const reader = await post(JSON.stringify({ label: 'limited', scopes: ['api_keys:write', 'api_keys:read'] }));
    const limited = { keyId: reader.body.key_id, secret: reader.body.secret };
    const first = await post(JSON.stringify({ label: 'escalating', scopes: ['withdrawals:write'] }), 'rejected-key', limited);
    expect([first.status, first.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    const replay = await post(JSON.stringify({ label: 'escalating', scopes: ['withdrawals:write'] }), 'rejected-key', limited);
    expect([replay.status, replay.body.code, replay.headers.get('idempotent-replay')]).toEqual([403, 'INSUFFICIENT_SCOPE', 'true']);
    expect(await countKeys('escalating')).toBe(0);
  });

  it('does not remember a request refused as invalid: fixed, it executes under the same key', async () => {
    const bad = await post(JSON.stringify({ label: 'fixed-later', scopes: ['wallets:admin'] }), 'fix-key');
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const good = await post(JSON.stringify({ label: 'fixed-later', scopes: ['fees:read'] }), 'fix-key');
    expect([good.status, good.headers.get('idempotent-replay')]).toEqual([201, null]);
  });

  it('scopes keys per workspace and network: the same key on another workspace or the live side executes anew', async () => {
    const other = await createWorkspace(api, 'other');
    const body = JSON.stringify({ label: 'scoped', scopes: ['fees:read'] });
    const results = [await post(body, 'shared-key'), await post(body, 'shared-key', other.testKey), await post(body, 'shared-key', ws.liveKey)];
    expect(results.map((r) => [r.status, r.headers.get('idempotent-replay')])).toEqual([
      [201, null],
      [201, null],
      [201, null],
    ]);
    expect(await countKeys('scoped')).toBe(3);
  });

  it('answers 400 IDEMPOTENCY_KEY_INVALID to a malformed key and creates nothing', async () => {
    for (const bad of ['', 'has space', 'é', 'x'.repeat(256), 'semi;colon']) {
      const res = await post(JSON.stringify({ label: 'invalid-key', scopes: ['fees:read'] }), bad);
      expect([res.status, res.body.code], JSON.stringify(bad)).toEqual([400, 'IDEMPOTENCY_KEY_INVALID']);
    }
    expect(await countKeys('invalid-key')).toBe(0);
    const longest = await post(JSON.stringify({ label: 'longest-key', scopes: ['fees:read'] }), 'k'.repeat(255));
    expect(longest.status).toBe(201);
  });

  it('forgets keys after 24 hours: the purge removes expired records', async () => {
    await post(JSON.stringify({ label: 'old', scopes: ['fees:read'] }), 'old-key');
    await api.infra.orm.em.getConnection().execute(`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'old-key'`);
    const again = await post(JSON.stringify({ label: 'old', scopes: ['fees:read'] }), 'old-key');
    expect(again.headers.get('idempotent-replay')).toBeNull();
    expect(await countKeys('old')).toBe(2);
    await api.infra.orm.em.getConnection().execute(`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'old-key'`);
    const { PurgeIdempotencyKeys } = await import('../../src/application/maintenance/purge-idempotency-keys.js');
    expect(await api.infra.container.resolve(PurgeIdempotencyKeys).execute()).toBeGreaterThanOrEqual(1);
  });
});
