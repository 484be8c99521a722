// The dashboard's webhooks and API keys over real HTTP (issue 32, ADR 0033),
// with a dispatcher delivering to a local receiver: an owner registers,
// changes, rotates and deletes an endpoint (each secret shown once), reads the
// delivery log with payloads and answers, redelivers; creates a key that
// really signs /v2 requests and revokes it. Other roles, other workspaces and
// forged forms change nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import { startDispatcher, type RunningDispatcher } from '../../src/bootstrap/dispatcher.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { createMember, DashboardClient, type TestMember } from '../support/dashboard.js';
import { call, createWorkspace, testConfig, uniqueCall, useTestApi } from '../support/harness.js';
import { poll } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TICK_MS: '60000', WEBHOOK_POLL_MS: '50' };
const t = useTestApi({ workspace: 'dashboard-hooks', env: ENV });
let dispatcher: RunningDispatcher;
let receiver: Receiver;
beforeAll(async () => {
  dispatcher = await startDispatcher(testConfig(t.db.url, ENV));
  receiver = await startReceiver(() => 500);
});
afterAll(async () => {
  await receiver?.close();
  await dispatcher?.close();
});

const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
const secretIn = (text: string, id: string) => new RegExp(`id="${id}">([^<]+)<`).exec(text)?.[1];

async function signedIn(role: TestMember['role'], workspaceId = t.ws.workspaceId): Promise<DashboardClient & { member: TestMember }> {
  const browser = new DashboardClient(t.api.baseUrl);
  const member = await createMember(t.api, workspaceId, role);
  expect((await browser.signIn(member)).status).toBe(303);
  return Object.assign(browser, { member });
}

/** Posts a form whose fields may repeat (checkboxes); the session's CSRF token unless `csrf` says otherwise (null: none). */
async function postForm(b: DashboardClient, path: string, fields: [string, string][], csrf: string | null = b.csrf) {
  const body = new URLSearchParams(csrf === null ? fields : [['_csrf', csrf], ...fields]);
  const res = await fetch(t.api.baseUrl + path, {
    method: 'POST',
    body: body.toString(),
    redirect: 'manual',
    headers: { cookie: b.cookie ?? '', 'content-type': 'application/x-www-form-urlencoded' },
  });
  return { status: res.status, text: await res.text(), location: res.headers.get('location') };
}

let published = 0;
/** Publishes BENEFICIARY_REMOVED on the test side, as the use cases do; returns the delivery to `endpointId`. */
async function publish(endpointId: string, workspaceId = t.ws.workspaceId): Promise<string> {
  const uow = t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
  const data = { workspace_id: workspaceId, chain: 'ETH_TESTNET', address: `0x${String(++published).padStart(40, 'a')}`, removed_at: new Date().toISOString() };
  await uow.run((tx) => tx.events.publish({ workspaceId, side: 'test', event: 'BENEFICIARY_REMOVED', data } as never));
  const [row] = await sql<{ id: string }>(`select id from webhook_deliveries where endpoint_id = ? order by created_at desc limit 1`, [endpointId]);
  return row!.id;
}

type DeliveryRow = { status: string; attempts: number; response_status: number | null; last_error: string | null };
const deliveryRow = async (id: string) => (await sql<DeliveryRow>(`select status, attempts, response_status, last_error from webhook_deliveries where id = ?`, [id]))[0]!;
const settled = (id: string, attempts: number) =>
  poll(async () => {
    const r = await deliveryRow(id);
    return r.attempts === attempts && r.status !== 'PENDING' ? r : undefined;
  }, 10_000, `attempt ${attempts} of ${id}`);

/** An endpoint of the workspace (made over the API) with one delivery that failed for good. */
async function endpointWithFailure(workspace = t.ws) {
  const created = await uniqueCall(t.api.baseUrl, workspace.testKey, 'POST', '/v2/webhooks', { url: receiver.url, events: ['BENEFICIARY_REMOVED'] });
  expect(created.status).toBe(201);
  const deliveryId = await publish(created.body.id as string, workspace.workspaceId);
  await poll(async () => ((await deliveryRow(deliveryId)).attempts === 1 ? true : undefined), 10_000, 'first attempt');
  // As after the fifth failure, without waiting 15 minutes for the schedule.
  await sql(`update webhook_deliveries set status = 'FAILED', failed_at = now(), next_attempt_at = null where id = ?`, [deliveryId]);
  return { endpointId: created.body.id as string, deliveryId };
}

/** Everything the pages could change. */
const everything = async () => ({
  endpoints: await sql(`select * from webhook_endpoints order by id`),
  deliveries: await sql(`select id, status, attempts, max_attempts, next_attempt_at from webhook_deliveries order by id`),
  keys: await sql(`select id, label, scopes, allowed_ips, expires_at, revoked_at from api_keys order by id`),
});

describe('the dashboard\'s webhooks', () => {
  it('registers an endpoint with its secret shown once, changes it, rotates the secret (shown once) and deletes it', async () => {
    const owner = await signedIn('OWNER');
    // The sandbox opens on the test side, where its money is; the live side is a link away.
    const opening = await owner.get('/dashboard/webhooks');
    expect(opening.text).toContain('href="/dashboard/webhooks?side=live"');
    expect(opening.text).toMatch(/href="\/dashboard\/webhooks\?side=test" aria-current="page"/);
    const live = await owner.get('/dashboard/webhooks?side=live');
    expect(live.text).toMatch(/href="\/dashboard\/webhooks\?side=live" aria-current="page"/);

    const created = await postForm(owner, '/dashboard/webhooks', [['side', 'test'], ['url', receiver.url], ['events', 'DEPOSIT_SWEPT'], ['events', 'BENEFICIARY_ADDED'], ['code', owner.member.recovery()]]);
    expect(created.status, created.text).toBe(200);
    const secret = secretIn(created.text, 'webhook-secret')!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    const [row] = await sql<{ id: string; events: string[]; side: string; secret_ciphertext: string }>(`select * from webhook_endpoints where workspace_id = ? and url = ?`, [t.ws.workspaceId, receiver.url]);
    expect([row!.side, row!.events]).toEqual(['test', ['DEPOSIT_SWEPT', 'BENEFICIARY_ADDED']]);
    expect(row!.secret_ciphertext).not.toContain(secret);
    const list = await owner.get('/dashboard/webhooks?side=test');
    expect(list.text).toContain(receiver.url);
    expect(list.text).not.toContain(secret);
    expect((await owner.get('/dashboard/webhooks?side=live')).text).not.toContain(receiver.url);
    const page = await owner.get(`/dashboard/webhooks/${row!.id}?side=test`);
    expect([page.status, page.text.includes(secret)]).toEqual([200, false]);

    const moved = `${receiver.url}/moved`;
    const changed = await postForm(owner, `/dashboard/webhooks/${row!.id}`, [['side', 'test'], ['url', moved], ['events', 'WITHDRAWAL_FAILED'], ['code', owner.member.recovery()]]);
    expect([changed.status, changed.location]).toEqual([303, `/dashboard/webhooks/${row!.id}?side=test&done=changed`]);
    expect(await sql(`select url, events, is_active from webhook_endpoints where id = ?`, [row!.id])).toEqual([{ url: moved, events: ['WITHDRAWAL_FAILED'], is_active: false }]);
    expect((await owner.get(changed.location!)).text).toContain('<p class="notice" role="status">Saved.</p>');

    const rotated = await owner.post(`/dashboard/webhooks/${row!.id}/rotate`, { side: 'test', code: owner.member.recovery() });
    const fresh = secretIn(rotated.text, 'webhook-secret');
    expect([rotated.status, fresh?.startsWith('whsec_'), fresh === secret]).toEqual([200, true, false]);
    const [after] = await sql<{ previous_secret_ciphertext: string; previous_secret_expires_at: string }>(`select * from webhook_endpoints where id = ?`, [row!.id]);
    expect(after!.previous_secret_ciphertext).toBe(row!.secret_ciphertext);
    expect(Date.parse(after!.previous_secret_expires_at)).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect((await owner.get(`/dashboard/webhooks/${row!.id}?side=test`)).text).not.toContain(fresh);

    // Hostile or wrong input: refused with a page, never a 500, nothing registered.
    const before = await everything();
    for (const fields of [
      [['side', 'test'], ['url', receiver.url], ['events', 'DEPOSIT_TELEPORTED']],
      [['side', 'test'], ['url', receiver.url]],
      [['side', 'test'], ['url', 'ftp://example.com/x'], ['events', 'DEPOSIT_SWEPT']],
      [['side', 'moon'], ['url', receiver.url], ['events', 'DEPOSIT_SWEPT']],
      [['url', receiver.url], ['events', 'DEPOSIT_SWEPT']],
    ] as [string, string][][]) {
      expect((await postForm(owner, '/dashboard/webhooks', fields)).status, JSON.stringify(fields)).toBe(400);
    }
    expect(await everything()).toEqual(before);
    for (const [path, status] of [['/dashboard/webhooks?side=moon', 400], ['/dashboard/webhooks?side=test&side=live', 400], ['/dashboard/webhooks/not-an-id?side=test', 404], [`/dashboard/webhooks/${row!.id}?side=test&status=LOST`, 400], [`/dashboard/webhooks/${row!.id}?side=test&page=0`, 400], [`/dashboard/webhooks/${row!.id}?side=live`, 404]] as const) {
      expect((await owner.get(path)).status, path).toBe(status);
    }
    expect((await owner.get('/dashboard/webhooks?side=test&done=constructor')).text).not.toContain('class="notice"');

    const deleted = await owner.post(`/dashboard/webhooks/${row!.id}/delete`, { side: 'test', code: owner.member.recovery() });
    expect([deleted.status, deleted.location]).toEqual([303, '/dashboard/webhooks?side=test&done=deleted']);
    expect(await sql(`select id from webhook_endpoints where id = ?`, [row!.id])).toEqual([]);
  });

  it('shows each delivery\'s payload and the receiver\'s answer, and redelivers one and every failed one since a time as new attempts', async () => {
    const owner = await signedIn('OWNER');
    const { endpointId, deliveryId } = await endpointWithFailure();
    const address = `0x${String(published).padStart(40, 'a')}`;
    const log = await owner.get(`/dashboard/webhooks/${endpointId}?side=test`);
    expect(log.status).toBe(200);
    expect(log.text).toContain(deliveryId);
    expect(log.text).toContain(`&quot;event&quot;:&quot;BENEFICIARY_REMOVED&quot;`);
    expect(log.text).toContain(address);
    expect(log.text).toContain('HTTP 500<br><code>HTTP 500: answer 500</code>');
    expect(log.text).toContain('1 of 5');
    expect((await owner.get(`/dashboard/webhooks/${endpointId}?side=test&status=DELIVERED`)).text).not.toContain(deliveryId);

    const again = await owner.post(`/dashboard/webhooks/${endpointId}/deliveries/${deliveryId}/redeliver`, { side: 'test' });
    expect([again.status, again.location]).toEqual([303, `/dashboard/webhooks/${endpointId}?side=test&done=redelivered`]);
    expect(await settled(deliveryId, 2)).toMatchObject({ status: 'FAILED', response_status: 500 });
    expect(receiver.byDelivery(deliveryId)).toHaveLength(2);

    const [{ created_at: createdAt }] = (await sql<{ created_at: string }>(`select created_at from webhook_deliveries where id = ?`, [deliveryId])) as [{ created_at: string }];
    const since = new Date(Date.parse(createdAt) - 60_000).toISOString().slice(0, 19); // as a datetime-local input sends it, in UTC
    const bulk = await owner.post(`/dashboard/webhooks/${endpointId}/redeliver-failed`, { side: 'test', since });
    expect([bulk.status, bulk.location]).toEqual([303, `/dashboard/webhooks/${endpointId}?side=test&done=redelivered-some`]);
    expect(await settled(deliveryId, 3)).toMatchObject({ status: 'FAILED' });
    expect(receiver.byDelivery(deliveryId)).toHaveLength(3);
    expect((await owner.get(bulk.location!)).text).toContain('Every failed delivery since that time is queued');

    const none = await owner.post(`/dashboard/webhooks/${endpointId}/redeliver-failed`, { side: 'test', since: new Date(Date.now() + 3600_000).toISOString() });
    expect(none.location).toBe(`/dashboard/webhooks/${endpointId}?side=test&done=redelivered-none`);
    for (const bad of ['yesterday', '1969-12-31T23:59', '2026-02-30T10:00', '']) {
      expect((await owner.post(`/dashboard/webhooks/${endpointId}/redeliver-failed`, { side: 'test', since: bad })).status, bad).toBe(400);
    }
    expect((await deliveryRow(deliveryId)).attempts).toBe(3);
  });
});

describe('the dashboard\'s API keys', () => {
  it('creates a key whose secret is shown once and signs /v2 requests, lists it with its last use, and revokes it', async () => {
    const owner = await signedIn('OWNER');
    const expires = new Date(Date.now() + 86_400_000).toISOString().slice(0, 16);
    const created = await postForm(owner, '/dashboard/keys', [
      ['side', 'test'], ['label', 'reporting <b>'], ['scopes', 'webhooks:read'], ['scopes', 'fees:read'], ['permission', ''], ['allowed_ips', '127.0.0.0/8\r\n::1'], ['expires_at', expires], ['code', owner.member.recovery()],
    ]);
    expect(created.status, created.text).toBe(200);
    // The second factor again: without a good code, no key.
    const keysBefore = await sql(`select id from api_keys order by id`);
    const noCode = await postForm(owner, '/dashboard/keys', [['side', 'test'], ['label', 'x'], ['scopes', 'fees:read'], ['code', '123456']]);
    expect(noCode.status).toBe(401);
    expect(await sql(`select id from api_keys order by id`)).toEqual(keysBefore);
    const keyId = secretIn(created.text, 'api-key-id')!;
    const secret = secretIn(created.text, 'api-key-secret')!;
    expect(keyId).toMatch(/^sk_test_/);
    expect(created.text).toContain('reporting &lt;b&gt;');
    const [row] = await sql<{ id: string; scopes: string[]; allowed_ips: string[]; expires_at: string; last_used_at: string | null }>(`select * from api_keys where key_id = ?`, [keyId]);
    expect([row!.scopes, row!.allowed_ips, new Date(row!.expires_at).toISOString(), row!.last_used_at]).toEqual([['webhooks:read', 'fees:read'], ['127.0.0.0/8', '::1'], `${expires}:00.000Z`, null]);

    expect((await call(t.api.baseUrl, { keyId, secret }, { path: '/v2/webhooks' })).status).toBe(200);
    expect((await call(t.api.baseUrl, { keyId, secret }, { path: '/v2/wallets' })).status).toBe(403);
    const list = await owner.get('/dashboard/keys?side=test');
    expect(list.text).toContain(keyId);
    expect(list.text).not.toContain(secret);
    expect(list.text).toContain('webhooks:read, fees:read');
    expect(list.text).toContain('127.0.0.0/8, ::1');
    const [used] = await sql<{ last_used_at: string }>(`select last_used_at from api_keys where id = ?`, [row!.id]);
    expect(list.text).toContain(new Date(used!.last_used_at).toISOString().slice(0, 19).replace('T', ' '));
    expect((await owner.get('/dashboard/keys?side=live')).text).not.toContain(keyId);

    const before = await everything();
    for (const fields of [
      [['side', 'test'], ['label', 'x'], ['scopes', 'god:mode']],
      [['side', 'test'], ['label', 'x']],
      [['side', 'test'], ['label', ''], ['scopes', 'fees:read']],
      [['side', 'test'], ['label', 'x'], ['permission', 'ROOT']],
      [['side', 'test'], ['label', 'x'], ['scopes', 'fees:read'], ['allowed_ips', 'not-an-ip']],
      [['side', 'test'], ['label', 'x'], ['scopes', 'fees:read'], ['expires_at', '2001-01-01T00:00']],
      [['side', 'test'], ['label', 'x'], ['scopes', 'fees:read'], ['expires_at', 'soon']],
    ] as [string, string][][]) {
      expect((await postForm(owner, '/dashboard/keys', fields)).status, JSON.stringify(fields)).toBe(400);
    }
    expect(await everything()).toEqual(before);

    const revoked = await owner.post(`/dashboard/keys/${row!.id}/revoke`, { side: 'test' });
    expect([revoked.status, revoked.location]).toEqual([303, '/dashboard/keys?side=test&done=revoked']);
    // Both changes are in the audit log with the member and their address, without the secret.
    const audited = await sql<{ action: string; actor: string; source: string; after: unknown }>(
      `select action, actor, source, after from member_audit where action like 'api-key.%' order by at`,
    );
    expect(audited.map((a) => [a.action, a.actor, a.source])).toEqual([
      ['api-key.create', owner.member.email, '127.0.0.1'],
      ['api-key.revoke', owner.member.email, '127.0.0.1'],
    ]);
    expect(JSON.stringify(audited)).not.toContain(secret);
    expect((await uniqueCall(t.api.baseUrl, { keyId, secret }, 'GET', '/v2/webhooks')).status).toBe(401);
    expect((await owner.get('/dashboard/keys?side=test')).text).not.toContain(keyId);
  });
});

describe('who may change webhooks and keys', () => {
  it('refuses every change to a VIEWER and an APPROVER with 403, changing nothing, while they read', async () => {
    const { endpointId, deliveryId } = await endpointWithFailure();
    const key = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/api-keys', { label: 'kept', scopes: ['fees:read'] });
    const changes = changesOn(endpointId, deliveryId, key.body.id as string);
    const before = await everything();
    for (const role of ['VIEWER', 'APPROVER'] as const) {
      const member = await signedIn(role);
      const hooks = await member.get(`/dashboard/webhooks/${endpointId}?side=test`);
      expect([hooks.status, hooks.text.includes(deliveryId), hooks.text.includes('redeliver-failed-form'), hooks.text.includes('change-webhook-form')]).toEqual([200, true, false, false]);
      const keys = await member.get('/dashboard/keys?side=test');
      expect([keys.status, keys.text.includes(key.body.key_id as string), keys.text.includes('create-key-form'), keys.text.includes('Revoke')]).toEqual([200, true, false, false]);
      for (const [path, fields] of changes) expect((await postForm(member, path, fields)).status, `${role} ${path}`).toBe(403);
    }
    expect(await everything()).toEqual(before);
  });

  it('answers 404 to another workspace\'s endpoint, delivery and key, changing nothing', async () => {
    const { endpointId, deliveryId } = await endpointWithFailure();
    const key = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/api-keys', { label: 'ours', scopes: ['fees:read'] });
    const other = await createWorkspace(t.api, 'elsewhere');
    const theirs = await endpointWithFailure(other);
    const stranger = await signedIn('OWNER', other.workspaceId);
    // A good code: the second factor passes, and the change still finds nothing of ours (its transaction undone, the code unspent).
    const code = stranger.member.recovery();
    const before = await everything();
    expect((await stranger.get(`/dashboard/webhooks/${endpointId}?side=test`)).status).toBe(404);
    expect((await stranger.get('/dashboard/keys?side=test')).text).not.toContain(key.body.key_id as string);
    for (const [path, fields] of [
      // Every change of one of ours (creating is always in one's own workspace).
      ...changesOn(endpointId, deliveryId, key.body.id as string, code).filter(([path]) => !['/dashboard/webhooks', '/dashboard/keys'].includes(path)),
      // Our delivery under their own endpoint.
      [`/dashboard/webhooks/${theirs.endpointId}/deliveries/${deliveryId}/redeliver`, [['side', 'test']]],
      [`/dashboard/webhooks/not-a-uuid/rotate`, [['side', 'test'], ['code', code]]],
      [`/dashboard/keys/x/revoke`, [['side', 'test']]],
    ] as [string, [string, string][]][]) {
      const res = await postForm(stranger, path, fields);
      expect(res.status, path).toBe(404);
      expect(res.text).toContain('<title>');
    }
    expect(await everything()).toEqual(before);
  });

  it('refuses a change with a forged or missing CSRF token with 403, changing nothing', async () => {
    const { endpointId, deliveryId } = await endpointWithFailure();
    const key = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/api-keys', { label: 'csrf', scopes: ['fees:read'] });
    const owner = await signedIn('OWNER');
    const before = await everything();
    for (const [path, fields] of changesOn(endpointId, deliveryId, key.body.id as string)) {
      expect((await postForm(owner, path, fields, 'forged')).status, path).toBe(403);
      expect((await postForm(owner, path, fields, null)).status, path).toBe(403);
    }
    expect(await everything()).toEqual(before);
  });
});

/** Every change the two sections offer, each with a valid form. */
function changesOn(endpointId: string, deliveryId: string, keyId: string, code = '123456'): [string, [string, string][]][] {
  const side: [string, string] = ['side', 'test'];
  const c: [string, string] = ['code', code];
  const base = `/dashboard/webhooks/${endpointId}`;
  return [
    ['/dashboard/webhooks', [side, ['url', receiver.url], ['events', 'DEPOSIT_SWEPT'], c]],
    [base, [side, ['url', receiver.url], ['events', 'DEPOSIT_SWEPT'], c]],
    [`${base}/rotate`, [side, c]],
    [`${base}/delete`, [side, c]],
    [`${base}/deliveries/${deliveryId}/redeliver`, [side]],
    [`${base}/redeliver-failed`, [side, ['since', '2020-01-01T00:00']]],
    ['/dashboard/keys', [side, ['label', 'x'], ['scopes', 'fees:read'], c]],
    [`/dashboard/keys/${keyId}/revoke`, [side]],
  ];
}
