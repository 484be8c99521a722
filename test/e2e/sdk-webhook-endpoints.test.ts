// Webhook endpoints through the client SDK over real HTTP, every answer
// checked against the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { ConflictError, InvalidRequestError, NotFoundError, WalletClient, type WalletApiError } from '../../src/sdk/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createWorkspace, failure as failWith, startTestApi, testConfig } from '../support/harness.js';
import { checkedFetch } from '../support/openapi-check.js';

let db: TestDatabase;
let api: Awaited<ReturnType<typeof startTestApi>>;
let client: WalletClient;
let workspaceId: string;
const failure = (p: Promise<unknown>) => failWith<WalletApiError>(p);

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url));
  const ws = await createWorkspace(api, 'sdk-webhooks');
  workspaceId = ws.workspaceId;
  client = new WalletClient({ fetch: checkedFetch, baseUrl: api.baseUrl, keyId: ws.testKey.keyId, secret: ws.testKey.secret, retryBaseDelayMs: 20 });
});

afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe('webhook endpoints through the SDK', () => {
  it('creates, lists, reads, updates, rotates and deletes an endpoint', async () => {
    const created = await client.createWebhookEndpoint({ url: 'https://93.184.216.34/hooks', events: ['DEPOSIT_CONFIRMED'] });
    expect(created.secret).toMatch(/^whsec_/);
    expect((await client.listWebhookEndpoints()).data.map((e) => e.id)).toContain(created.id);
    expect((await client.getWebhookEndpoint(created.id)).events).toEqual(['DEPOSIT_CONFIRMED']);
    const paused = await client.updateWebhookEndpoint(created.id, { is_active: false });
    expect(paused.is_active).toBe(false);
    const rotated = await client.rotateWebhookSecret(created.id);
    expect(rotated.secret).not.toBe(created.secret);
    expect(Date.parse(rotated.previous_secret_expires_at)).toBeGreaterThan(Date.now());
    expect((await client.deleteWebhookEndpoint(created.id)).message).toMatch(/deleted/);
    expect(await failure(client.getWebhookEndpoint(created.id))).toBeInstanceOf(NotFoundError);
  });

  it('raises typed errors: a private URL is invalid, a pending delivery blocks a delete', async () => {
    const invalid = await failure(client.createWebhookEndpoint({ url: 'https://192.168.0.10/hooks', events: ['DEPOSIT_SWEPT'] }));
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid.code).toBe('VALIDATION_ERROR');
    const endpoint = await client.createWebhookEndpoint({ url: 'https://93.184.216.34/other', events: ['BENEFICIARY_REMOVED'] });
    // No dispatcher runs here: the event's delivery stays PENDING.
    await api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
      tx.events.publish({
        workspaceId,
        side: 'test',
        event: 'BENEFICIARY_REMOVED',
        data: { workspace_id: workspaceId, chain: 'ETH_TESTNET', address: `0x${'1'.repeat(40)}`, removed_at: new Date().toISOString() },
      }),
    );
    const conflict = await failure(client.deleteWebhookEndpoint(endpoint.id));
    expect(conflict).toBeInstanceOf(ConflictError);
  });
});
