// Webhook endpoints over real HTTP: register (secret once, stored
// encrypted), list, read, change, rotate, delete; public https URLs only; at
// most 10 per workspace and side; no delete while a delivery is pending.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { createWorkspace, uniqueCall, useTestApi, type TestApi } from '../support/harness.js';

const t = useTestApi();
let api: TestApi;
let ws: CreatedWorkspace;
beforeAll(() => {
  ({ api, ws } = t);
});
type Key = { keyId: string; secret: string };
const req = (key: Key, method: string, path: string, body?: unknown) => uniqueCall(api.baseUrl, key, method, path, body);
const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T>(text, params);
const PUBLIC = 'https://93.184.216.34/hooks/wallet';

describe('webhook endpoints', () => {
  it('registers an endpoint with its secret shown once and stored encrypted, then reads and lists it without the secret', async () => {
    const created = await req(ws.testKey, 'POST', '/v2/webhooks', { url: PUBLIC, events: ['DEPOSIT_CONFIRMED', 'DEPOSIT_DETECTED', 'DEPOSIT_CONFIRMED'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: PUBLIC, events: ['DEPOSIT_DETECTED', 'DEPOSIT_CONFIRMED'], is_active: true });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    const { secret, ...endpoint } = created.body;
    expect((await req(ws.testKey, 'GET', `/v2/webhooks/${endpoint.id}`)).body).toEqual(endpoint);
    const list = await req(ws.testKey, 'GET', '/v2/webhooks');
    expect(list.body.data).toContainEqual(endpoint);
    const rows = await sql<{ secret_ciphertext: string }[]>('select secret_ciphertext from webhook_endpoints where id = ?', [endpoint.id]);
    expect(rows[0]!.secret_ciphertext).not.toContain(secret);
    // The other side and another workspace see nothing of it.
    expect((await req(ws.liveKey, 'GET', `/v2/webhooks/${endpoint.id}`)).status).toBe(404);
    const stranger = await createWorkspace(api, 'stranger');
    expect((await req(stranger.testKey, 'GET', `/v2/webhooks/${endpoint.id}`)).status).toBe(404);
    expect((await req(stranger.testKey, 'PATCH', `/v2/webhooks/${endpoint.id}`, { is_active: false })).status).toBe(404);
    expect((await req(stranger.testKey, 'DELETE', `/v2/webhooks/${endpoint.id}`)).status).toBe(404);
  });

  it('refuses private, local and plain-http URLs, unknown events and an empty events list with VALIDATION_ERROR', async () => {
    for (const body of [
      { url: 'https://127.0.0.1/', events: ['DEPOSIT_SWEPT'] },
      { url: 'https://10.0.0.8/hook', events: ['DEPOSIT_SWEPT'] },
      { url: 'https://[::ffff:127.0.0.1]/hook', events: ['DEPOSIT_SWEPT'] },
      { url: 'https://169.254.169.254/latest', events: ['DEPOSIT_SWEPT'] },
      { url: 'https://localhost/hook', events: ['DEPOSIT_SWEPT'] },
      { url: 'http://93.184.216.34/hook', events: ['DEPOSIT_SWEPT'] },
      // Refused, not repaired into another URL than the one sent.
      { url: 'https://93.184.216.34/a\r\nHost: evil', events: ['DEPOSIT_SWEPT'] },
      { url: 'https:/93.184.216.34/hook', events: ['DEPOSIT_SWEPT'] },
      { url: 'https://93.184.216.34\\@127.0.0.1/', events: ['DEPOSIT_SWEPT'] },
      { url: 'https://93.184.216.34:0/hook', events: ['DEPOSIT_SWEPT'] },
      { url: PUBLIC, events: [] },
      { url: PUBLIC, events: ['DEPOSIT_TELEPORTED'] },
      { url: PUBLIC },
      { url: PUBLIC, events: ['DEPOSIT_SWEPT'], secret: 'mine' },
    ]) {
      const res = await req(ws.testKey, 'POST', '/v2/webhooks', body);
      expect([res.status, res.body.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it('changes only the fields given, re-checking a new URL', async () => {
    const created = (await req(ws.testKey, 'POST', '/v2/webhooks', { url: PUBLIC, events: ['WITHDRAWAL_CONFIRMED'] })).body;
    const off = await req(ws.testKey, 'PATCH', `/v2/webhooks/${created.id}`, { is_active: false });
    expect(off.body).toMatchObject({ url: PUBLIC, events: ['WITHDRAWAL_CONFIRMED'], is_active: false });
    const moved = await req(ws.testKey, 'PATCH', `/v2/webhooks/${created.id}`, { url: 'https://93.184.216.35/v2', events: ['WITHDRAWAL_FAILED'] });
    expect(moved.body).toMatchObject({ url: 'https://93.184.216.35/v2', events: ['WITHDRAWAL_FAILED'], is_active: false });
    for (const body of [{ url: 'https://192.168.1.1/' }, { events: [] }, null, [], { is_active: 'yes' }]) {
      const res = await req(ws.testKey, 'PATCH', `/v2/webhooks/${created.id}`, body === null ? 'null' : body);
      expect([res.status, res.body.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect((await req(ws.testKey, 'GET', `/v2/webhooks/${created.id}`)).body).toEqual(moved.body);
  });

  it('rotates the secret: a new one once, the previous one valid for 24 hours', async () => {
    const created = (await req(ws.testKey, 'POST', '/v2/webhooks', { url: PUBLIC, events: ['DEPOSIT_SWEPT'] })).body;
    const before = Date.now();
    const rotated = await req(ws.testKey, 'POST', `/v2/webhooks/${created.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    const expires = Date.parse(rotated.body.previous_secret_expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(24 * 3600_000 - 5000);
    expect(expires - before).toBeLessThanOrEqual(24 * 3600_000 + 5000);
    const rows = await sql<{ previous_secret_ciphertext: string }[]>('select previous_secret_ciphertext from webhook_endpoints where id = ?', [created.id]);
    expect(rows[0]!.previous_secret_ciphertext).not.toContain(created.secret);
  });

  it('refuses to delete an endpoint with a pending delivery (409 CONFLICT), then deletes it with its history', async () => {
    const created = (await req(ws.testKey, 'POST', '/v2/webhooks', { url: PUBLIC, events: ['DEPOSIT_SWEPT'] })).body;
    const delivery = randomUUID();
    const event = randomUUID();
    await sql(`insert into webhook_events (id, workspace_id, side, event, payload, created_at) values (?, ?, 'test', 'DEPOSIT_SWEPT', '{}', now())`, [
      event,
      ws.workspaceId,
    ]);
    await sql(
      `insert into webhook_deliveries (id, endpoint_id, event_id, event, status, payload, attempts, created_at) values (?, ?, ?, 'DEPOSIT_SWEPT', 'PENDING', '{}', 0, now())`,
      [delivery, created.id, event],
    );
    const refused = await req(ws.testKey, 'DELETE', `/v2/webhooks/${created.id}`);
    expect([refused.status, refused.body.code]).toEqual([409, 'CONFLICT']);
    await sql(`update webhook_deliveries set status = 'FAILED' where id = ?`, [delivery]);
    const deleted = await req(ws.testKey, 'DELETE', `/v2/webhooks/${created.id}`);
    expect([deleted.status, deleted.body]).toEqual([200, { message: 'Webhook endpoint deleted' }]);
    expect((await req(ws.testKey, 'GET', `/v2/webhooks/${created.id}`)).status).toBe(404);
    expect(await sql('select 1 from webhook_deliveries where id = ?', [delivery])).toEqual([]);
  });

  it('registers at most 10 endpoints per workspace and side, even when asked for at once: the 11th is 422 WEBHOOK_LIMIT_REACHED', async () => {
    const fresh = await createWorkspace(api, 'limits');
    const results = await Promise.all(
      Array.from({ length: 14 }, () => req(fresh.testKey, 'POST', '/v2/webhooks', { url: PUBLIC, events: ['DEPOSIT_SWEPT'] })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    for (const r of results.filter((x) => x.status !== 201)) expect([r.status, r.body.code]).toEqual([422, 'WEBHOOK_LIMIT_REACHED']);
    // The other side has its own ten.
    expect((await req(fresh.liveKey, 'POST', '/v2/webhooks', { url: PUBLIC, events: ['DEPOSIT_SWEPT'] })).status).toBe(201);
  });

  it('refuses a body on routes that take none, and a since PostgreSQL cannot store, changing nothing', async () => {
    const created = (await req(ws.testKey, 'POST', '/v2/webhooks', { url: PUBLIC, events: ['DEPOSIT_SWEPT'] })).body;
    const secretBefore = await sql<{ secret_ciphertext: string }[]>('select secret_ciphertext from webhook_endpoints where id = ?', [created.id]);
    const chosen = await req(ws.testKey, 'POST', `/v2/webhooks/${created.id}/rotate-secret`, { secret: 'whsec_mine' });
    expect([chosen.status, chosen.body.code, chosen.body.details]).toEqual([400, 'VALIDATION_ERROR', [{ path: 'secret', message: 'Unrecognized key' }]]);
    expect((await req(ws.testKey, 'POST', `/v2/webhooks/${created.id}/rotate-secret`, [])).status).toBe(400);
    expect(await sql('select secret_ciphertext from webhook_endpoints where id = ?', [created.id])).toEqual(secretBefore);
    const forced = await req(ws.testKey, 'DELETE', `/v2/webhooks/${created.id}`, { force: true });
    expect([forced.status, forced.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await req(ws.testKey, 'GET', `/v2/webhooks/${created.id}`)).status).toBe(200);
    for (const since of ['0000-01-01T00:00:00Z', '0001-01-01T00:59:59+01:00', '1969-12-31T23:59:59Z']) {
      const res = await req(ws.testKey, 'POST', `/v2/webhooks/${created.id}/deliveries/redeliver-failed`, { since });
      expect([res.status, res.body.code], since).toEqual([400, 'VALIDATION_ERROR']);
    }
    // An empty object names nothing: accepted.
    expect((await req(ws.testKey, 'POST', `/v2/webhooks/${created.id}/rotate-secret`, {})).status).toBe(200);
    expect((await req(ws.testKey, 'DELETE', `/v2/webhooks/${created.id}`, {})).status).toBe(200);
  });
});
