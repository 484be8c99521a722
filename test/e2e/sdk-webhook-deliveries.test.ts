// Deliveries end to end through the SDK: an event reaches a real receiver that
// checks it with the SDK's verifyWebhook (and answers 401 when it does not
// verify, as a receiver should); the delivery log and a redelivery through
// the SDK's methods, every answer checked against the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { startDispatcher, type RunningDispatcher } from '../../src/bootstrap/dispatcher.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { ConflictError, WalletClient, verifyWebhook, type WalletApiError } from '../../src/sdk/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createWorkspace, failure as failWith, startTestApi, testConfig, type TestApi } from '../support/harness.js';
import { checkedFetch } from '../support/openapi-check.js';
import { poll } from '../support/processes.js';
import { checkedEnvelope, startReceiver, type Receiver } from '../support/webhook-receiver.js';

let db: TestDatabase;
let api: TestApi;
let dispatcher: RunningDispatcher;
let ws: CreatedWorkspace;
let client: WalletClient;
let receiver: Receiver;
let secret = '';
const verified: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  const config = testConfig(db.url, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50' });
  api = await startTestApi(config);
  dispatcher = await startDispatcher(config);
  ws = await createWorkspace(api, 'sdk-deliveries');
  client = new WalletClient({ fetch: checkedFetch, baseUrl: api.baseUrl, keyId: ws.testKey.keyId, secret: ws.testKey.secret, retryBaseDelayMs: 20 });
  receiver = await startReceiver((_n, r) => {
    try {
      const event = verifyWebhook({ rawBody: r.rawBody, headers: r.headers as Record<string, string>, secret });
      verified.push(event.deliveryId!);
      return 200;
    } catch {
      return 401;
    }
  });
});
afterAll(async () => {
  await receiver?.close();
  await dispatcher?.close();
  await api?.close();
  await db?.drop();
});

/** Publishes WITHDRAWAL_POLICY_CHANGED on the test side, as `ops policy set` does. */
function policyChanged(changed: ('per_tx_limit' | 'daily_limit')[], limits: { per_tx_limit: string | null; daily_limit: string }) {
  const uow = dispatcher.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
  return uow.run((tx) =>
    tx.events.publish({
      workspaceId: ws.workspaceId,
      side: 'test',
      event: 'WITHDRAWAL_POLICY_CHANGED',
      data: {
        workspace_id: ws.workspaceId,
        network: 'MAINNET',
        changed,
        policy: { allowlist: [], cooling_off_hours: null, approval_above: null, approval_quorum: 1, ...limits },
        changed_at: new Date().toISOString(),
      },
    }),
  );
}

describe('webhook deliveries through the SDK', () => {
  it('delivers a signed event that verifyWebhook accepts, shows it in the log, and redelivers it with the same id', async () => {
    const endpoint = await client.createWebhookEndpoint({ url: receiver.url, events: ['WITHDRAWAL_POLICY_CHANGED'] });
    secret = endpoint.secret;
    await policyChanged(['daily_limit'], { per_tx_limit: null, daily_limit: '5000' });
    await poll(async () => (verified.length === 1 ? true : undefined), 10_000, 'a verified delivery');
    expect(checkedEnvelope(receiver.received[0]!).data).toMatchObject({ changed: ['daily_limit'], policy: { daily_limit: '5000' } });

    const log = await poll(async () => {
      const page = await client.listWebhookDeliveries(endpoint.id, { status: 'DELIVERED' });
      return page.total === 1 ? page : undefined;
    }, 5000, 'the log entry');
    const [entry] = log.data;
    expect(entry).toMatchObject({ id: verified[0], webhook_id: endpoint.id, event: 'WITHDRAWAL_POLICY_CHANGED', attempts: 1, response_status: 200 });

    const again = await client.redeliverWebhookDelivery(endpoint.id, entry!.id);
    expect(again.status).toBe('PENDING');
    await poll(async () => (verified.length === 2 ? true : undefined), 10_000, 'the redelivery');
    expect(verified[1]).toBe(entry!.id);
    const after = await poll(async () => {
      const page = await client.listWebhookDeliveries(endpoint.id);
      return page.data[0]?.status === 'DELIVERED' && page.data[0].attempts === 2 ? page : undefined;
    }, 5000, 'two attempts');
    expect(after.total).toBe(1);
    expect(await client.redeliverFailedWebhookDeliveries(endpoint.id, { since: new Date(Date.now() - 60_000).toISOString() })).toMatchObject({
      redelivered: 0,
      more: false,
    });
    expect((await client.listWebhookDeliveries(endpoint.id, { status: 'FAILED' })).total).toBe(0);
    // A delivery still PENDING is not redelivered.
    await dispatcher.dispatch.stop(1000);
    await policyChanged(['per_tx_limit'], { per_tx_limit: '100', daily_limit: '5000' });
    const pending = (await client.listWebhookDeliveries(endpoint.id, { status: 'PENDING' })).data[0]!;
    expect(await failWith<WalletApiError>(client.redeliverWebhookDelivery(endpoint.id, pending.id))).toBeInstanceOf(ConflictError);
  });
});
