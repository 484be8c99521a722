// The dispatcher against real local receivers, on a clock the test moves: the
// retry schedule (1, 2, 4, 8 minutes; FAILED after five), signatures verified
// with the SDK helper, the delivery log, redelivery, rotation overlap, and one
// dead receiver not delaying a healthy one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PurgeWebhookDeliveries } from '../../src/application/maintenance/purge-webhook-deliveries.js';
import { ReconcileSettlements } from '../../src/application/webhooks/reconcile-settlements.js';
import { SetWorkspaceContact } from '../../src/application/workspaces/set-workspace-contact.js';
import { envelope } from '../../src/domain/webhooks/delivery-schedule.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { startDispatcher, type RunningDispatcher } from '../../src/bootstrap/dispatcher.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import type { EventName } from '../../src/domain/webhooks/events.js';
import { signWebhook, verifyWebhook } from '../../src/sdk/webhooks.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { FakeClock } from '../support/fakes.js';
import { createWorkspace, startTestApi, testConfig, uniqueCall, type TestApi } from '../support/harness.js';
import { poll } from '../support/processes.js';
import { checkedEnvelope, startReceiver, type Receiver } from '../support/webhook-receiver.js';

const MINUTE = 60_000;
let db: TestDatabase;
let api: TestApi;
let dispatcher: RunningDispatcher;
let ws: CreatedWorkspace;
const clock = new FakeClock(new Date());
const receivers: Receiver[] = [];
let smtp: TestSmtpServer;
/** The mails received, quoted-printable soft line breaks joined. */
const mails = () => smtp.received.map((m) => ({ ...m, raw: m.raw.replace(/=\r?\n/g, '') }));

beforeAll(async () => {
  smtp = await startSmtpServer();
  db = await createTestDatabase();
  // The tick is driven by the test (dispatch.tick()); first attempts come through their job.
  const config = testConfig(db.url, {
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TICK_MS: '60000',
    WEBHOOK_POLL_MS: '50',
    SMTP_URL: smtp.url,
  });
  api = await startTestApi(config);
  dispatcher = await startDispatcher(config, { clock });
  ws = await createWorkspace(api, 'dispatch');
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await dispatcher?.close();
  await api?.close();
  await db?.drop();
  await smtp?.close();
});

type Key = { keyId: string; secret: string };
const req = (key: Key, method: string, path: string, body?: unknown) => uniqueCall(api.baseUrl, key, method, path, body);

async function receiver(script: Receiver['script']): Promise<Receiver> {
  const r = await startReceiver(script);
  receivers.push(r);
  return r;
}

async function endpoint(r: Receiver, events: EventName[] = ['BENEFICIARY_REMOVED']): Promise<{ id: string; secret: string }> {
  const created = await req(ws.testKey, 'POST', '/v2/webhooks', { url: r.url, events });
  expect(created.status).toBe(201);
  return created.body as { id: string; secret: string };
}

let published = 0;
/** Publishes an event through the dispatcher's own unit of work (its clock is the test's). */
async function publish(event: EventName = 'BENEFICIARY_REMOVED'): Promise<string[]> {
  const uow = dispatcher.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
  const data =
    event === 'BENEFICIARY_REMOVED'
      ? { workspace_id: ws.workspaceId, chain: 'ETH_TESTNET', address: `0x${String(++published).padStart(40, '0')}`, removed_at: clock.now().toISOString() }
      : { workspace_id: ws.workspaceId, chain: 'ETH_TESTNET', address: `0x${String(++published).padStart(40, '0')}`, added_at: clock.now().toISOString(), cooling_off_ends_at: null };
  const { deliveryIds } = await uow.run((tx) => tx.events.publish({ workspaceId: ws.workspaceId, side: 'test', event, data } as never));
  return deliveryIds;
}

/** Of a publication's deliveries, the one to this endpoint. */
async function deliveryTo(endpointId: string, ids: string[]): Promise<string> {
  const rows = await api.infra.orm.em
    .getConnection()
    .execute<{ id: string }[]>('select id from webhook_deliveries where endpoint_id = ? and id = any(?::uuid[])', [endpointId, `{${ids.join(',')}}`]);
  expect(rows).toHaveLength(1);
  return rows[0]!.id;
}

const arrivals = (r: Receiver, n: number) => poll(async () => (r.received.length >= n ? r.received : undefined), 10_000, `${n} deliveries`);

/** Moves the clock and runs the dispatcher's tick, once every attempt in flight has been recorded. */
async function advance(ms: number): Promise<void> {
  await poll(
    async () => {
      const rows = await api.infra.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from webhook_deliveries where lease_token is not null`);
      return rows[0]!.n === '0' ? true : undefined;
    },
    10_000,
    'attempts in flight to be recorded',
  );
  clock.advance(ms);
  await dispatcher.dispatch.tick();
}

async function log(endpointId: string, query = '') {
  const res = await req(ws.testKey, 'GET', `/v2/webhooks/${endpointId}/deliveries${query}`);
  expect(res.status).toBe(200);
  return res.body as { data: Record<string, unknown>[]; total: number };
}

describe('webhook dispatch', () => {
  it('retries a failing receiver after 1, 2 and 4 minutes with the same delivery id, signed, until it answers 200', async () => {
    clock.set(new Date());
    const r = await receiver((n) => (n <= 3 ? 500 : 200));
    const ep = await endpoint(r);
    const deliveryId = await deliveryTo(ep.id, await publish());
    await arrivals(r, 1);
    for (const wait of [MINUTE, 2 * MINUTE, 4 * MINUTE]) {
      const before = r.received.length;
      await advance(wait - 1000);
      await new Promise((res) => setTimeout(res, 150));
      expect(r.received.length).toBe(before); // not due yet
      await advance(1000);
      await arrivals(r, before + 1);
    }
    expect(r.received).toHaveLength(4);
    const stamps = r.received.map((x) => Number(x.headers['x-service-timestamp']));
    expect(stamps.slice(1).map((s, i) => s - stamps[i]!)).toEqual([60, 120, 240]);
    for (const got of r.received) {
      expect(got.headers['x-service-delivery']).toBe(deliveryId);
      expect(got.headers['x-service-event']).toBe('BENEFICIARY_REMOVED');
      const verified = verifyWebhook({ rawBody: got.rawBody, headers: got.headers as Record<string, string>, secret: ep.secret, now: new Date(Number(got.headers['x-service-timestamp']) * 1000) });
      expect(verified.deliveryId).toBe(deliveryId);
      expect(checkedEnvelope(got).event).toBe('BENEFICIARY_REMOVED');
      expect(got.headers['x-service-signature-previous']).toBeUndefined();
    }
    const entry = (await log(ep.id)).data[0]!;
    expect(entry).toMatchObject({ id: deliveryId, webhook_id: ep.id, status: 'DELIVERED', attempts: 4, response_status: 200, last_error: null, next_attempt_at: null });
    expect(entry.payload).toBe(r.received[0]!.rawBody);
  });

  it('fails a delivery for good after the fifth failure; a redelivery is one more attempt with the same id; redeliver-failed re-sends since a time', async () => {
    clock.set(new Date());
    let healthy = false;
    const r = await receiver(() => (healthy ? 204 : 503));
    const ep = await endpoint(r);
    const deliveryId = await deliveryTo(ep.id, await publish());
    await arrivals(r, 1);
    for (const [i, wait] of [MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE].entries()) {
      await advance(wait);
      await arrivals(r, i + 2);
    }
    await poll(async () => ((await log(ep.id, '?status=FAILED')).total === 1 ? true : undefined), 5000, 'FAILED');
    const failed = (await log(ep.id, '?status=FAILED')).data[0]!;
    expect(failed).toMatchObject({ id: deliveryId, status: 'FAILED', attempts: 5, response_status: 503, next_attempt_at: null, delivered_at: null });
    expect(failed.last_error).toMatch(/^HTTP 503/);
    await advance(60 * MINUTE);
    await new Promise((res) => setTimeout(res, 200));
    expect(r.received).toHaveLength(5); // never retried again

    const again = await req(ws.testKey, 'POST', `/v2/webhooks/${ep.id}/deliveries/${deliveryId}/redeliver`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: deliveryId, status: 'PENDING', attempts: 5 });
    await arrivals(r, 6);
    expect(r.received[5]!.headers['x-service-delivery']).toBe(deliveryId);
    await poll(async () => ((await log(ep.id)).data[0]!.attempts === 6 ? true : undefined), 5000, 'sixth attempt recorded');
    expect((await log(ep.id)).data[0]).toMatchObject({ status: 'FAILED', attempts: 6 });

    healthy = true;
    const since = new Date(Date.parse(failed.created_at as string) - 1000).toISOString();
    const bulk = await req(ws.testKey, 'POST', `/v2/webhooks/${ep.id}/deliveries/redeliver-failed`, { since });
    expect([bulk.status, bulk.body]).toEqual([200, { redelivered: 1, more: false }]);
    await arrivals(r, 7);
    await poll(async () => ((await log(ep.id)).data[0]!.status === 'DELIVERED' ? true : undefined), 5000, 'DELIVERED');
    expect((await log(ep.id)).data[0]).toMatchObject({ id: deliveryId, status: 'DELIVERED', attempts: 7, response_status: 204 });

    // A PENDING delivery is not redelivered; an unknown one is not found; another workspace sees nothing.
    healthy = false;
    const pending = await deliveryTo(ep.id, await publish());
    await arrivals(r, 8);
    const conflict = await req(ws.testKey, 'POST', `/v2/webhooks/${ep.id}/deliveries/${pending}/redeliver`);
    expect([conflict.status, conflict.body.code]).toEqual([409, 'CONFLICT']);
    expect((await req(ws.testKey, 'POST', `/v2/webhooks/${ep.id}/deliveries/${ep.id}/redeliver`)).status).toBe(404);
    const stranger = await createWorkspace(api, 'stranger');
    expect((await req(stranger.testKey, 'GET', `/v2/webhooks/${ep.id}/deliveries`)).status).toBe(404);
    expect((await req(stranger.testKey, 'POST', `/v2/webhooks/${ep.id}/deliveries/${deliveryId}/redeliver`)).status).toBe(404);
    expect((await req(ws.liveKey, 'POST', `/v2/webhooks/${ep.id}/deliveries/redeliver-failed`, { since })).status).toBe(404);
    // Let the pending one finish so nothing is left running.
    healthy = true;
    for (const wait of [MINUTE]) await advance(wait);
    await poll(async () => ((await log(ep.id, '?status=PENDING')).total === 0 ? true : undefined), 5000, 'no PENDING');
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    clock.set(new Date());
    const r = await receiver(() => 200);
    const ep = await endpoint(r);
    const rotated = await req(ws.testKey, 'POST', `/v2/webhooks/${ep.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    await publish();
    const [during] = await arrivals(r, 1);
    const ts = during!.headers['x-service-timestamp'] as string;
    expect(during!.headers['x-service-signature']).toBe(signWebhook({ secret: fresh, timestamp: ts, rawBody: during!.rawBody }));
    expect(during!.headers['x-service-signature-previous']).toBe(signWebhook({ secret: ep.secret, timestamp: ts, rawBody: during!.rawBody }));
    // A receiver still holding only the old secret accepts it during the overlap.
    expect(() => verifyWebhook({ rawBody: during!.rawBody, headers: during!.headers as Record<string, string>, secret: ep.secret, now: new Date(Number(ts) * 1000) })).not.toThrow();

    clock.set(new Date(Date.parse(rotated.body.previous_secret_expires_at as string) + 1000));
    await publish();
    const after = (await arrivals(r, 2))[1]!;
    expect(after.headers['x-service-signature-previous']).toBeUndefined();
    const ts2 = after.headers['x-service-timestamp'] as string;
    expect(after.headers['x-service-signature']).toBe(signWebhook({ secret: fresh, timestamp: ts2, rawBody: after.rawBody }));
  });

  it('e-mails the workspace contact once when an endpoint has its fifth permanently failed delivery within 7 days', async () => {
    clock.set(new Date());
    const contact = api.infra.container.resolve(SetWorkspaceContact);
    await contact.execute({ workspaceId: ws.workspaceId, email: null });
    const r = await receiver(() => 500);
    const ep = await endpoint(r);
    const failAll = async (count: number) => {
      const ids: string[] = [];
      const before = r.received.length;
      for (let i = 0; i < count; i++) ids.push(await deliveryTo(ep.id, await publish()));
      await arrivals(r, before + count);
      for (const [i, wait] of [MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE].entries()) {
        await advance(wait);
        await arrivals(r, before + count * (i + 2));
      }
      await poll(async () => ((await log(ep.id, '?status=PENDING')).total === 0 ? true : undefined), 5000, 'all FAILED');
      return ids;
    };
    // Without a contact there is no one to tell: the notice is not spent.
    const mine = await failAll(5);
    const notices = () => api.infra.orm.em.getConnection().execute<unknown[]>('select * from webhook_notices where endpoint_id = ?', [ep.id]);
    expect(await notices()).toEqual([]);
    // With a contact, the next permanent failure (the sixth within 7 days) sends one e-mail; a seventh sends none.
    await contact.execute({ workspaceId: ws.workspaceId, email: 'ops@integrator.example' });
    mine.push(...(await failAll(1)));
    await poll(async () => (mails().length >= 1 ? true : undefined), 10_000, 'the notice');
    mine.push(...(await failAll(1)));
    await new Promise((res) => setTimeout(res, 1000));
    expect(mails()).toHaveLength(1);
    expect(mails()[0]!.to).toEqual(['ops@integrator.example']);
    expect(mails()[0]!.raw).toContain(ep.id);
    expect(mails()[0]!.raw).toContain('redeliver-failed');
    expect(await notices()).toHaveLength(1);
    // Recover them all (so the endpoint is quiet for the next test).
    r.script = () => 200;
    const bulk = await req(ws.testKey, 'POST', `/v2/webhooks/${ep.id}/deliveries/redeliver-failed`, { since: new Date(Date.now() - 3600_000).toISOString() });
    expect(bulk.body).toEqual({ redelivered: 7, more: false });
    await poll(async () => ((await log(ep.id, '?status=DELIVERED')).total === 7 ? true : undefined), 5000, 'all delivered');
    expect(mine.every((id) => r.byDelivery(id).length === 6)).toBe(true);
  });

  it('purges delivered and failed deliveries after 90 days, never PENDING ones', async () => {
    clock.set(new Date());
    const r = await receiver(() => 200);
    const ep = await endpoint(r, ['COMMITMENT_ADJUSTMENT_EMITTED']);
    const sql = (text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute(text, params);
    const old = new Date(Date.now() - 91 * 24 * 3600_000);
    const recent = new Date(Date.now() - 89 * 24 * 3600_000);
    const ids = { oldDelivered: randomUUID(), oldFailed: randomUUID(), oldPending: randomUUID(), recentFailed: randomUUID() };
    const eventId = randomUUID();
    const lonelyEvent = randomUUID();
    for (const id of [eventId, lonelyEvent]) {
      await sql(`insert into webhook_events (id, workspace_id, side, event, payload, created_at) values (?, ?, 'test', 'COMMITMENT_ADJUSTMENT_EMITTED', '{}', ?)`, [id, ws.workspaceId, old]);
    }
    const row = (id: string, status: string, at: Date) =>
      sql(
        `insert into webhook_deliveries (id, endpoint_id, event_id, event, status, payload, attempts, created_at, delivered_at, failed_at, next_attempt_at)
         values (?, ?, ?, 'COMMITMENT_ADJUSTMENT_EMITTED', ?, '{}', 1, ?, ?, ?, ?)`,
        [id, ep.id, eventId, status, at, status === 'DELIVERED' ? at : null, status === 'FAILED' ? at : null, status === 'PENDING' ? new Date(Date.now() + 3600_000 * 24 * 365) : null],
      );
    await row(ids.oldDelivered, 'DELIVERED', old);
    await row(ids.oldFailed, 'FAILED', old);
    await row(ids.oldPending, 'PENDING', old);
    await row(ids.recentFailed, 'FAILED', recent);
    const purged = await dispatcher.infra.container.resolve(PurgeWebhookDeliveries).execute();
    expect(purged).toEqual({ deliveries: 2, events: 1 });
    const left = await sql(`select id from webhook_deliveries where endpoint_id = ? order by id`, [ep.id]);
    expect((left as unknown as { id: string }[]).map((x) => x.id).sort()).toEqual([ids.oldPending, ids.recentFailed].sort());
    await sql(`delete from webhook_deliveries where id = ?`, [ids.oldPending]);
  });

  it('reconciles a settlement event whose delivery never came to exist: a new delivery id, once', async () => {
    clock.set(new Date());
    const r = await receiver(() => 200);
    const ep = await endpoint(r, ['DEPOSIT_SWEPT']);
    const at = new Date(Date.now() + 1000);
    const id = randomUUID();
    const data = {
      deposit_id: id, id, workspace_id: ws.workspaceId, wallet_id: randomUUID(), customer_id: null, chain: 'ETH_TESTNET', asset: 'USDT_ETH',
      txid: '0xabc', amount: '100.000000', status: 'SWEPT', confirmations: 12, required_confirmations: 12,
      detected_at: at.toISOString(), confirmed_at: at.toISOString(), swept_at: at.toISOString(),
      fee_record: { fee_amount: '1.000000', net_amount: '99.000000' },
      fee: { gross_amount: '100.000000', fee_amount: '1.000000', net_amount: '99.000000', applied_rate: '0.010000', applied_min_fee: '1.000000' },
    };
    const eventId = randomUUID();
    await api.infra.orm.em
      .getConnection()
      .execute(`insert into webhook_events (id, workspace_id, side, event, payload, created_at) values (?, ?, 'test', 'DEPOSIT_SWEPT', ?, ?)`, [
        eventId, ws.workspaceId, envelope('DEPOSIT_SWEPT', at, data), at,
      ]);
    clock.set(new Date(at.getTime() + 1000));
    const reconcile = dispatcher.infra.container.resolve(ReconcileSettlements);
    expect(await reconcile.execute()).toBe(1);
    const [got] = await arrivals(r, 1);
    expect(checkedEnvelope(got!).data.deposit_id).toBe(id);
    expect(await reconcile.execute()).toBe(0);
    const entries = (await log(ep.id)).data;
    expect(entries).toHaveLength(1);
    expect(entries[0]!.id).toBe(got!.headers['x-service-delivery']);
  });

  it("does not let one endpoint's backlog of due retries take every claim", async () => {
    clock.set(new Date());
    const flooded = await receiver(() => 500);
    const other = await receiver((n) => (n === 1 ? 500 : 200));
    await endpoint(flooded, ['WITHDRAWAL_HELD']);
    // 60 failing deliveries, older than the other endpoint's one.
    const uow = dispatcher.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const withdrawal = (i: number) => ({
      withdrawal_id: randomUUID(), id: randomUUID(), workspace_id: ws.workspaceId, chain: 'ETH_TESTNET', asset: 'USDT_ETH', amount: '1.000000',
      status: 'UNDER_REVIEW', txid: null, destination_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', idempotency_key: `k-${i}`,
      requested_at: clock.now().toISOString(), confirmed_at: null, fee_record: null,
    });
    for (let i = 0; i < 60; i++) {
      await uow.run((tx) => tx.events.publish({ workspaceId: ws.workspaceId, side: 'test', event: 'WITHDRAWAL_HELD', data: withdrawal(i) }));
    }
    await arrivals(flooded, 60);
    clock.advance(1000);
    const ep = await endpoint(other, ['WITHDRAWAL_HELD']);
    await uow.run((tx) => tx.events.publish({ workspaceId: ws.workspaceId, side: 'test', event: 'WITHDRAWAL_HELD', data: withdrawal(60) }));
    await arrivals(other, 1);
    await poll(async () => ((await log(ep.id)).data[0]?.attempts === 1 ? true : undefined), 5000, 'first attempt recorded');
    // One tick when all 61 retries are due: the other endpoint's is among those claimed.
    await advance(MINUTE + 1000);
    await arrivals(other, 2);
    expect(flooded.received.length).toBeLessThanOrEqual(61 + 10); // 61 first attempts (it wants the last event too), 10 retries
    // Quiet the flood: let every one of its deliveries succeed.
    flooded.script = () => 200;
    for (let i = 0; i < 8; i++) await advance(10 * MINUTE);
    await poll(async () => ((await log(ep.id)).data[0]?.status === 'DELIVERED' ? true : undefined), 5000, 'delivered');
  });

  it('keeps delivering to a healthy endpoint while another endpoint never answers', async () => {
    clock.set(new Date());
    const dead = await receiver(() => 'hang');
    const healthy = await receiver(() => 200);
    const deadEndpoint = await endpoint(dead, ['BENEFICIARY_ADDED']);
    await endpoint(healthy, ['BENEFICIARY_ADDED']);
    const started = Date.now();
    for (let i = 0; i < 30; i++) await publish('BENEFICIARY_ADDED');
    await arrivals(healthy, 30);
    const elapsed = Date.now() - started;
    // Every delivery to the healthy receiver arrived while the dead one held its 10 slots for 10 s each.
    expect(elapsed).toBeLessThan(5000);
    expect(dead.received.length).toBe(10);
    const lastHealthy = Math.max(...healthy.received.map((x) => x.at));
    expect(lastHealthy - started).toBeLessThan(5000);

    // What operators alert on: the dead endpoint's oldest PENDING delivery has an age; outcomes are counted.
    const metrics = await (await fetch(`http://127.0.0.1:${dispatcher.port}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`webhook_oldest_pending_seconds\\{endpoint="${deadEndpoint.id}"[^}]*\\} \\d`));
    expect(metrics).toMatch(/webhook_attempts_total\{outcome="delivered"[^}]*\} \d+/);
    expect(metrics).toMatch(/webhook_attempt_duration_seconds_bucket/);
  });
});
