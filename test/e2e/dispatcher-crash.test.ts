// Killing the dispatcher with SIGKILL in the middle of deliveries and starting
// it again loses no delivery and leaves none stuck: what it held comes back
// when its leases run out, and is delivered (an interrupted attempt may reach
// the receiver twice, with the same delivery id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { createWorkspace, startTestApi, testConfig, uniqueCall, type TestApi } from '../support/harness.js';
import { opsEnv, poll, spawnEntry, type Spawned } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const KEY = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
let db: TestDatabase;
let api: TestApi;
let ws: CreatedWorkspace;
let receiver: Receiver;
let dispatcher: Spawned | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url, { SECRET_ENCRYPTION_KEY: KEY, WEBHOOK_ALLOW_PRIVATE: 'true' }));
  ws = await createWorkspace(api, 'crash');
  // Every answer takes 700 ms, so attempts are in flight when the process dies.
  receiver = await startReceiver(() => 200, { delayMs: 700 });
});
afterAll(async () => {
  dispatcher?.child.kill('SIGKILL');
  await receiver?.close();
  await api?.close();
  await db?.drop();
});

async function startDispatcherProcess(): Promise<Spawned> {
  const s = spawnEntry(
    'src/bootstrap/dispatcher.ts',
    opsEnv(db.url, {
      SECRET_ENCRYPTION_KEY: KEY,
      DISPATCHER_PORT: String(await freePort()),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_LEASE_SECONDS: '15',
      WEBHOOK_TICK_MS: '500',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      LOG_LEVEL: 'info',
    }),
  );
  await s.waitFor(/dispatcher listening/, 30_000);
  return s;
}

const sql = <T>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute(text, params) as Promise<T>;

describe('dispatcher crash', () => {
  it('loses no delivery and leaves none stuck when killed mid-delivery and restarted', async () => {
    const created = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/webhooks', { url: receiver.url, events: ['BENEFICIARY_ADDED'] });
    expect(created.status).toBe(201);

    dispatcher = await startDispatcherProcess();
    const uow = api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const at = new Date().toISOString();
      const { deliveryIds } = await uow.run((tx) =>
        tx.events.publish({
          workspaceId: ws.workspaceId,
          side: 'test',
          event: 'BENEFICIARY_ADDED',
          data: { workspace_id: ws.workspaceId, chain: 'ETH_TESTNET', address: `0x${String(i).padStart(40, '0')}`, added_at: at, cooling_off_ends_at: null },
        }),
      );
      ids.push(...deliveryIds);
    }
    // Kill it while it holds deliveries.
    await poll(async () => ((await sql<{ n: string }[]>(`select count(*) as n from webhook_deliveries where lease_token is not null`))[0]!.n !== '0' ? true : undefined), 20_000, 'held deliveries');
    dispatcher.child.kill('SIGKILL');
    await dispatcher.exit();
    const held = await sql<{ n: string }[]>(`select count(*) as n from webhook_deliveries where status = 'PENDING'`);
    expect(Number(held[0]!.n)).toBeGreaterThan(0);

    dispatcher = await startDispatcherProcess();
    await poll(
      async () => ((await sql<{ n: string }[]>(`select count(*) as n from webhook_deliveries where status <> 'DELIVERED'`))[0]!.n === '0' ? true : undefined),
      60_000,
      'every delivery DELIVERED',
    );
    for (const id of ids) expect(receiver.byDelivery(id).length, id).toBeGreaterThanOrEqual(1);
    const leftovers = await sql<unknown[]>(`select id from webhook_deliveries where lease_token is not null or lease_until is not null`);
    expect(leftovers).toEqual([]);
    dispatcher.child.kill('SIGTERM');
    expect((await dispatcher.exit()).code).toBe(0);
    dispatcher = undefined;
  }, 120_000);
});
