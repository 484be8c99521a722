// Issue 5's acceptance, driven through the client SDK over real HTTP: keys
// with scopes, escalation refused, revocation, expiry, allowlists, idempotency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch } from '../support/openapi-check.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import {
  AuthenticationError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  WalletClient,
  type WalletApiError,
} from '../../src/sdk/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createWorkspace, startTestApi, testConfig } from '../support/harness.js';
import { failure as failWith } from '../support/harness.js';

let db: TestDatabase;
let api: Awaited<ReturnType<typeof startTestApi>>;
let ws: CreatedWorkspace;
let owner: WalletClient;

const client = (key: { keyId: string; secret: string } | { key_id: string; secret: string }) =>
  new WalletClient({ fetch: checkedFetch,
    baseUrl: api.baseUrl,
    keyId: 'keyId' in key ? key.keyId : key.key_id,
    secret: key.secret,
    retryBaseDelayMs: 20,
  });

const failure = (p: Promise<unknown>) => failWith<WalletApiError>(p);

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url));
  ws = await createWorkspace(api, 'sdk');
  owner = client(ws.testKey);
});

afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe('API keys through the SDK', () => {
  it('creates a key with a subset of scopes, uses it, and is refused outside them', async () => {
    const created = await owner.createApiKey({ label: 'wallet reader', scopes: ['wallets:read', 'api_keys:read'] });
    expect(created.key_id).toMatch(/^sk_test_/);
    const reader = client(created);
    expect((await reader.listChains()).data.length).toBe(3);
    expect((await reader.listApiKeys()).total).toBeGreaterThanOrEqual(2);
    const err = await failure(reader.createApiKey({ label: 'nope', scopes: ['wallets:read'] }));
    expect(err).toBeInstanceOf(PermissionError);
    expect([err.status, err.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });

  it('refuses to mint a scope the creator lacks, creating nothing', async () => {
    const minter = client(await owner.createApiKey({ label: 'minter', scopes: ['api_keys:write', 'api_keys:read'] }));
    const before = (await owner.listApiKeys({ limit: 100 })).total;
    const err = await failure(minter.createApiKey({ label: 'escalate', scopes: ['withdrawals:write'] }));
    expect(err.code).toBe('INSUFFICIENT_SCOPE');
    expect((await owner.listApiKeys({ limit: 100 })).total).toBe(before);
  });

  it('revokes a key: its next call is INVALID_API_KEY', async () => {
    const created = await owner.createApiKey({ label: 'to revoke', scopes: ['fees:read'] });
    const doomed = client(created);
    await doomed.listChains();
    expect((await owner.revokeApiKey(created.id)).message).toBeTruthy();
    const err = await failure(doomed.listChains());
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.code).toBe('INVALID_API_KEY');
    expect(await failure(owner.revokeApiKey(created.id))).toBeInstanceOf(NotFoundError);
  });

  it('an expired key gets API_KEY_EXPIRED', async () => {
    const created = await owner.createApiKey({
      label: 'brief',
      scopes: ['fees:read'],
      expires_at: new Date(Date.now() + 1200).toISOString(),
    });
    await new Promise((r) => setTimeout(r, 1300));
    expect((await failure(client(created).listChains())).code).toBe('API_KEY_EXPIRED');
  });

  it('an allowlisted key outside its CIDR gets IP_NOT_ALLOWED before any signature check; IPv6 CIDRs work', async () => {
    const v6 = await owner.createApiKey({ label: 'v6', scopes: ['fees:read'], allowed_ips: ['2001:db8::/32'] });
    const forged = new WalletClient({ fetch: checkedFetch, baseUrl: api.baseUrl, keyId: v6.key_id, secret: 'wrong secret' });
    const err = await failure(forged.listChains());
    expect([err.status, err.code]).toEqual([403, 'IP_NOT_ALLOWED']);
    const local = await owner.createApiKey({ label: 'loopback v6 + v4', scopes: ['fees:read'], allowed_ips: ['::1/128', '127.0.0.0/8'] });
    expect((await client(local).listChains()).data).toHaveLength(3);
  });

  it('rejects an unknown scope as a validation error', async () => {
    const err = await failure(owner.createApiKey({ label: 'bad', scopes: ['wallets:admin' as never] }));
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect(err.code).toBe('VALIDATION_ERROR');
  });
});

describe('API key creation is not idempotent', () => {
  it('creates a new key on every call, so no replay can ever hand a secret out twice', async () => {
    const a = await owner.createApiKey({ label: 'twice', scopes: ['fees:read'] });
    const b = await owner.createApiKey({ label: 'twice', scopes: ['fees:read'] });
    expect(b.id).not.toBe(a.id);
    expect(b.secret).not.toBe(a.secret);
    expect([a.lastResponse.idempotentReplay, b.lastResponse.idempotentReplay]).toEqual([false, false]);
    expect((await owner.listApiKeys({ limit: 100 })).data.filter((k) => k.label === 'twice')).toHaveLength(2);
  });
});
