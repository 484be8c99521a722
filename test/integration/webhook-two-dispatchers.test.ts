// Two dispatcher processes on one database share the work and never send one
// attempt twice: every delivery reaches the receiver exactly once. A job left
// active by a dispatcher killed between fetching it and completing it expires,
// and is completed by the next one without a second attempt.
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { installQueues, PG_BOSS_SCHEMA } from '../../src/adapters/jobs/pg-boss-jobs.js';
import { startDispatcher, type RunningDispatcher } from '../../src/bootstrap/dispatcher.js';
import type { Config } from '../../src/bootstrap/config.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createWorkspace, startTestApi, testConfig, uniqueCall, type TestApi } from '../support/harness.js';
import { poll } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

let db: TestDatabase;
let api: TestApi;
let dispatchers: RunningDispatcher[] = [];
let ws: CreatedWorkspace;
let receiver: Receiver;
let config: Config;

beforeAll(async () => {
  db = await createTestDatabase();
  config = testConfig(db.url, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_TICK_MS: '100' });
  api = await startTestApi(config);
  dispatchers = [await startDispatcher(config), await startDispatcher(config)];
  ws = await createWorkspace(api, 'two-dispatchers');
  // A little latency, so both dispatchers hold deliveries at the same time.
  receiver = await startReceiver(() => 200, { delayMs: 20 });
});
afterAll(async () => {
  await receiver?.close();
  await Promise.all(dispatchers.map((d) => d.close()));
  await api?.close();
  await db?.drop();
});

describe('two dispatchers', () => {
  it('deliver every delivery exactly once between them', async () => {
    const created = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/webhooks', { url: receiver.url, events: ['BENEFICIARY_REMOVED'] });
    expect(created.status).toBe(201);
    const uow = api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 5 }, async (_, worker) => {
        for (let i = 0; i < 30; i++) {
          const { deliveryIds } = await uow.run((tx) =>
            tx.events.publish({
              workspaceId: ws.workspaceId,
              side: 'test',
              event: 'BENEFICIARY_REMOVED',
              data: { workspace_id: ws.workspaceId, chain: 'ETH_TESTNET', address: `0x${String(worker * 100 + i).padStart(40, '0')}`, removed_at: new Date().toISOString() },
            }),
          );
          ids.push(...deliveryIds);
        }
      }),
    );
    await poll(async () => (receiver.received.length >= ids.length ? true : undefined), 30_000, `${ids.length} deliveries`);
    await new Promise((r) => setTimeout(r, 500));
    const seen = receiver.received.map((r) => r.headers['x-service-delivery'] as string);
    expect(seen).toHaveLength(ids.length);
    expect(new Set(seen)).toEqual(new Set(ids));
    const pending = await api.infra.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from webhook_deliveries where status <> 'DELIVERED'`);
    expect(pending[0]!.n).toBe('0');
    // Both took part.
    for (const d of dispatchers) {
      const text = await (await fetch(`http://127.0.0.1:${d.port}/metrics`)).text();
      const delivered = Number(/webhook_attempts_total\{outcome="delivered"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
      expect(delivered).toBeGreaterThan(0);
    }
  });

  it('a job left active by a dispatcher killed between fetch and complete expires and is completed; its delivery is sent once', async () => {
    await Promise.all(dispatchers.map((d) => d.close()));
    dispatchers = [];
    const sql = <T>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute(text, params) as Promise<T>;
    // The killed dispatcher's stand-in: fetches and never completes. Its own maintenance runs every second.
    const boss = new PgBoss({ connectionString: db.url, schema: PG_BOSS_SCHEMA, max: 2, schedule: false, supervise: true, maintenanceIntervalSeconds: 1 });
    boss.on('error', () => undefined);
    await boss.start();
    try {
      // An installation whose queue has pg-boss's default expiry is brought to the catalogue's.
      await sql(`update pgboss.queue set expire_seconds = 900 where name = 'webhook.deliver'`);
      await installQueues(boss);
      expect((await sql<{ expire_seconds: number }[]>(`select expire_seconds from pgboss.queue where name = 'webhook.deliver'`))[0]!.expire_seconds).toBe(30);

      const before = receiver.received.length;
      const uow = api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
      const { deliveryIds } = await uow.run((tx) =>
        tx.events.publish({
          workspaceId: ws.workspaceId,
          side: 'test',
          event: 'BENEFICIARY_REMOVED',
          data: { workspace_id: ws.workspaceId, chain: 'ETH_TESTNET', address: `0x${'e'.repeat(40)}`, removed_at: new Date().toISOString() },
        }),
      );
      expect(deliveryIds).toHaveLength(1);
      const [job] = await boss.fetch<{ deliveryId: string }>('webhook.deliver');
      expect(job?.data.deliveryId).toBe(deliveryIds[0]);
      // The dispatcher it stands for delivered it (as one that died after its claim would), and its job stayed active.
      dispatchers = [await startDispatcher(config)];
      await poll(async () => (receiver.received.length > before ? true : undefined), 15_000, 'the delivery');
      const state = async () => (await sql<{ state: string }[]>(`select state from pgboss.job where id = ?`, [job!.id]))[0]?.state;
      expect(await state()).toBe('active');
      // Half a minute later (moved back rather than waited for), the expiry takes it as lost and it is tried again.
      await sql(`update pgboss.job set started_on = started_on - interval '31 seconds' where id = ?`, [job!.id]);
      await poll(async () => ((await state()) === 'completed' ? true : undefined), 30_000, 'the expired job completed');
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.byDelivery(deliveryIds[0]!)).toHaveLength(1);
      const left = await sql<unknown[]>(`select id, state from pgboss.job where name = 'webhook.deliver' and state in ('created', 'retry', 'active')`);
      expect(left).toEqual([]);
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
  }, 60_000);
});
