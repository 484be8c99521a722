// TEMPORARY (not to keep): the SDK against the real api process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { createWorkspace, startTestApi, testConfig } from '../../support/harness.js';
import { AuthenticationError, NotFoundError, PermissionError, WalletClient, InvalidRequestError } from '../../../src/sdk/index.js';

let db: TestDatabase;
let api: Awaited<ReturnType<typeof startTestApi>>;
let client: WalletClient;
beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url));
  const ws = await createWorkspace(api);
  client = new WalletClient({ baseUrl: api.baseUrl, keyId: ws.testKey.keyId, secret: ws.testKey.secret });
});
afterAll(async () => { await api?.close(); await db?.drop(); });

describe('sdk vs real api', () => {
  it('works end to end', async () => {
    const chains = await client.listChains();
    expect(chains.data.length).toBe(3);
    console.log(JSON.stringify(chains.data[0]), chains.lastResponse.requestId);
    // identical concurrent GETs
    const both = await Promise.all([client.listChains(), client.listChains(), client.listApiKeys({ page: 1, limit: 5 })]);
    console.log(both.map((b) => b.lastResponse.attempts), JSON.stringify(both[2]));
    const key = await client.createApiKey({ label: 'Café – 東京', scopes: ['wallets:read'] }, { idempotencyKey: 'sdk-e2e-1' });
    console.log(JSON.stringify(key), key.lastResponse);
    const again = await client.createApiKey({ label: 'Café – 東京', scopes: ['wallets:read'] }, { idempotencyKey: 'sdk-e2e-1' });
    console.log('replay?', again.lastResponse.idempotentReplay, again.lastResponse.status, again.id === key.id);
    const narrow = new WalletClient({ baseUrl: api.baseUrl, keyId: key.key_id, secret: key.secret });
    await expect(narrow.listApiKeys()).rejects.toBeInstanceOf(PermissionError);
    await expect(client.createApiKey({ label: 'x', scopes: ['nope' as never] })).rejects.toBeInstanceOf(InvalidRequestError);
    const revoked = await client.revokeApiKey(key.id);
    console.log(revoked);
    const e = await narrow.listChains().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AuthenticationError);
    console.log((e as AuthenticationError).code, (e as AuthenticationError).requestId);
    await expect(client.revokeApiKey('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(NotFoundError);
    const bad = new WalletClient({ baseUrl: api.baseUrl, keyId: key.key_id, secret: 'wrong' });
    console.log(await bad.listChains().catch((err: { code: string }) => err.code));
  });
});
