// Two dispatcher processes on one database share the work and never send one
// attempt twice: every delivery reaches the receiver exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { startDispatcher, type RunningDispatcher } from '../../src/bootstrap/dispatcher.js';
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

beforeAll(async () => {
  db = await createTestDatabase();
  const config = testConfig(db.url, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '20', WEBHOOK_TICK_MS: '100' });
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
});
