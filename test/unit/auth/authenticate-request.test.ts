import { describe, expect, it } from 'vitest';
import { AuthenticateRequest, type SignedRequest } from '../../../src/application/auth/authenticate-request.js';
import { AuthFailureThrottle } from '../../../src/domain/auth/auth-failure-throttle.js';
import { CreateWorkspace } from '../../../src/application/workspaces/create-workspace.js';
import { sha256Hex, signRequest } from '../../../src/sdk/signing.js';
import type { ErrorCode } from '../../../src/domain/errors.js';
import { fakeWorld, InMemoryCredentialStore, InMemoryRequestAdmission } from '../../support/fakes.js';

async function setup(limits = { ratePerSecond: 1000, burst: 100_000 }) {
  const world = fakeWorld();
  const created = await new CreateWorkspace(world.uow, world.cipher, world.random, world.clock).execute({ name: 'acme' });
  const throttle = new AuthFailureThrottle(limits);
  const auth = new AuthenticateRequest(world.credentials, world.admission, world.cipher, world.signer, world.clock, throttle);
  const nowSeconds = () => String(Math.floor(world.clock.now().getTime() / 1000));
  const signed = (over: Partial<SignedRequest> & { secret?: string; body?: string } = {}): SignedRequest => {
    const timestamp = over.timestamp ?? nowSeconds();
    const method = over.method ?? 'GET';
    const path = over.path ?? '/v2/chains?page=1';
    const body = over.body ?? '';
    const secret = over.secret ?? created.testKey.secret;
    return {
      keyId: created.testKey.keyId,
      timestamp,
      signature: signRequest({ secret, timestamp, method, path, body }),
      method,
      path,
      bodySha256Hex: sha256Hex(body),
      sourceIp: '203.0.113.7',
      ...over,
    };
  };
  const key = () => [...world.store.apiKeys.values()].find((k) => k.keyId === created.testKey.keyId)!;
  return { world, created, auth, signed, key, throttle };
}

async function codeOf(p: Promise<unknown>): Promise<ErrorCode | 'OK'> {
  try {
    await p;
    return 'OK';
  } catch (err) {
    return (err as { code: ErrorCode }).code;
  }
}

describe('AuthenticateRequest', () => {
  it('accepts a correctly signed request and names the workspace, the test side and every scope', async () => {
    const { auth, signed, created } = await setup();
    const p = await auth.execute(signed());
    expect(p.workspaceId).toBe(created.workspaceId);
    expect(p.side).toBe('test');
    expect(p.scopes.size).toBe(12);
  });

  it('refuses a request missing any of the three headers with MISSING_AUTH_HEADERS', async () => {
    const { auth, signed } = await setup();
    for (const field of ['keyId', 'timestamp', 'signature'] as const) {
      expect(await codeOf(auth.execute({ ...signed(), [field]: undefined }))).toBe('MISSING_AUTH_HEADERS');
    }
  });

  it('refuses a timestamp more than five minutes away, either side, and a non-numeric one', async () => {
    const { auth, signed, world } = await setup();
    const now = Math.floor(world.clock.now().getTime() / 1000);
    expect(await codeOf(auth.execute(signed({ timestamp: String(now - 301) })))).toBe('TIMESTAMP_EXPIRED');
    expect(await codeOf(auth.execute(signed({ timestamp: String(now + 301) })))).toBe('TIMESTAMP_EXPIRED');
    expect(await codeOf(auth.execute(signed({ timestamp: 'soon' })))).toBe('TIMESTAMP_EXPIRED');
    expect(await codeOf(auth.execute(signed({ timestamp: String(now - 300) })))).toBe('OK');
  });

  it('refuses a wrong secret, a changed path, a changed body and an uppercase signature with INVALID_SIGNATURE', async () => {
    const { auth, signed } = await setup();
    expect(await codeOf(auth.execute(signed({ secret: 'not-the-secret' })))).toBe('INVALID_SIGNATURE');
    const good = signed();
    expect(await codeOf(auth.execute({ ...good, path: '/v2/chains?page=2' }))).toBe('INVALID_SIGNATURE');
    expect(await codeOf(auth.execute({ ...good, bodySha256Hex: sha256Hex('{}') }))).toBe('INVALID_SIGNATURE');
    expect(await codeOf(auth.execute({ ...signed(), signature: signed().signature!.toUpperCase() }))).toBe(
      'INVALID_SIGNATURE',
    );
  });

  it('refuses the same signature twice with REPLAY_DETECTED', async () => {
    const { auth, signed } = await setup();
    const req = signed();
    expect(await codeOf(auth.execute(req))).toBe('OK');
    expect(await codeOf(auth.execute(req))).toBe('REPLAY_DETECTED');
  });

  it('refuses an unknown key and a revoked key with INVALID_API_KEY', async () => {
    const { auth, signed, key, world } = await setup();
    expect(await codeOf(auth.execute(signed({ keyId: 'sk_test_nope' })))).toBe('INVALID_API_KEY');
    world.store.apiKeys.set(key().id, { ...key(), revokedAt: world.clock.now() });
    expect(await codeOf(auth.execute(signed()))).toBe('INVALID_API_KEY');
  });

  it('refuses an expired key with API_KEY_EXPIRED once expires_at is reached', async () => {
    const { auth, signed, key, world } = await setup();
    world.store.apiKeys.set(key().id, { ...key(), expiresAt: new Date(world.clock.now().getTime() + 60_000) });
    expect(await codeOf(auth.execute(signed()))).toBe('OK');
    world.clock.advance(60_000);
    expect(await codeOf(auth.execute(signed()))).toBe('API_KEY_EXPIRED');
  });

  it('checks the IP allowlist before the signature', async () => {
    const { auth, signed, key, world } = await setup();
    world.store.apiKeys.set(key().id, { ...key(), allowedIps: ['198.51.100.0/24', '2001:db8::/32'] });
    expect(await codeOf(auth.execute(signed({ secret: 'wrong', sourceIp: '203.0.113.7' })))).toBe('IP_NOT_ALLOWED');
    expect(await codeOf(auth.execute(signed({ sourceIp: '198.51.100.20', path: '/v2/chains?n=1' })))).toBe('OK');
    expect(await codeOf(auth.execute(signed({ sourceIp: '2001:db8:1::5', path: '/v2/chains?n=2' })))).toBe('OK');
    expect(await codeOf(auth.execute(signed({ sourceIp: '::ffff:198.51.100.9', path: '/v2/chains?n=3' })))).toBe('OK');
    expect(await codeOf(auth.execute(signed({ sourceIp: '2001:db9::1' })))).toBe('IP_NOT_ALLOWED');
  });

  it('refuses keys of an inactive workspace with WORKSPACE_INACTIVE', async () => {
    const { auth, signed, created, world } = await setup();
    const w = world.store.workspaces.get(created.workspaceId)!;
    world.store.workspaces.set(w.id, { ...w, status: 'INACTIVE' });
    expect(await codeOf(auth.execute(signed()))).toBe('WORKSPACE_INACTIVE');
  });

  it('lets a burst of 100 through, then answers RATE_LIMITED with a retry delay until tokens refill at 50 per second', async () => {
    const { auth, signed } = await setup();
    const codes: string[] = [];
    for (let i = 0; i < 120; i++) codes.push(await codeOf(auth.execute(signed({ path: `/v2/chains?i=${i}` }))));
    expect(codes.filter((c) => c === 'OK')).toHaveLength(100);
    expect(codes.slice(100).every((c) => c === 'RATE_LIMITED')).toBe(true);
    await expect(auth.execute(signed({ path: '/v2/chains?late' }))).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { retry_after_seconds: 1 },
    });
  });

  it('refills the bucket with time: one second later 50 more requests pass', async () => {
    const { auth, signed, world } = await setup();
    for (let i = 0; i < 100; i++) await auth.execute(signed({ path: `/v2/chains?i=${i}` }));
    world.clock.advance(1000);
    const codes: string[] = [];
    for (let i = 0; i < 60; i++) codes.push(await codeOf(auth.execute(signed({ path: `/v2/chains?j=${i}` }))));
    expect(codes.filter((c) => c === 'OK')).toHaveLength(50);
  });

  it('does not spend the rate limit of a key on requests with a bad signature', async () => {
    const { auth, signed } = await setup();
    for (let i = 0; i < 150; i++) await codeOf(auth.execute(signed({ secret: 'guess', path: `/v2/chains?i=${i}` })));
    expect(await codeOf(auth.execute(signed()))).toBe('OK');
  });

  it('maps a legacy READ_ONLY key with no scopes to every :read scope and nothing else', async () => {
    const { auth, signed, key, world } = await setup();
    world.store.apiKeys.set(key().id, { ...key(), scopes: [], permission: 'READ_ONLY' });
    const p = await auth.execute(signed());
    expect([...p.scopes].every((s) => s.endsWith(':read'))).toBe(true);
    expect(p.scopes.has('wallets:read')).toBe(true);
    expect(p.scopes.size).toBe(7);
  });
});

describe('failed-authentication throttle', () => {
  it('refuses with RATE_LIMITED and Retry-After seconds once a source has failed a burst, before looking up any key', async () => {
    const { auth, signed, world } = await setup({ ratePerSecond: 1, burst: 3 });
    for (let i = 0; i < 3; i++) expect(await codeOf(auth.execute(signed({ signature: 'f'.repeat(64) })))).toBe('INVALID_SIGNATURE');
    let lookups = 0;
    const find = world.credentials.findCredential.bind(world.credentials);
    world.credentials.findCredential = (id: string) => (lookups++, find(id));
    const refused = await auth.execute(signed()).catch((e: unknown) => e as { code: string; details: unknown });
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', details: { retry_after_seconds: 1 } });
    expect(lookups).toBe(0);
    world.clock.advance(1000);
    expect(await codeOf(auth.execute(signed()))).toBe('OK');
    expect(lookups).toBe(1);
  });

  it('takes the token before the work: of 30 bad signatures sent at once, only the burst reaches the key lookup', async () => {
    const { auth, signed, world } = await setup({ ratePerSecond: 0.001, burst: 3 });
    let lookups = 0;
    const find = world.credentials.findCredential.bind(world.credentials);
    world.credentials.findCredential = (id: string) => (lookups++, find(id));
    const codes = await Promise.all(Array.from({ length: 30 }, (_, i) => codeOf(auth.execute(signed({ path: `/v2/chains?bad=${i}`, signature: 'f'.repeat(64) })))));
    expect(codes.filter((c) => c === 'INVALID_SIGNATURE')).toHaveLength(3);
    expect(codes.filter((c) => c === 'RATE_LIMITED')).toHaveLength(27);
    expect(lookups).toBe(3);
  });

  it("lets an honest client's 30 parallel requests all through: each gives its token back", async () => {
    const { auth, signed } = await setup({ ratePerSecond: 0.001, burst: 3 });
    const codes = await Promise.all(Array.from({ length: 30 }, (_, i) => codeOf(auth.execute(signed({ path: `/v2/chains?good=${i}` })))));
    expect(codes).toEqual(Array.from({ length: 30 }, () => 'OK'));
    // Nothing was spent: the burst of failures is still whole.
    for (let i = 0; i < 3; i++) expect(await codeOf(auth.execute(signed({ path: `/v2/chains?then=${i}`, signature: 'f'.repeat(64) })))).toBe('INVALID_SIGNATURE');
  });

  it('counts every way of failing to authenticate, and not what an authenticated key is refused', async () => {
    const { auth, signed, world, key } = await setup({ ratePerSecond: 0.001, burst: 5 });
    expect(await codeOf(auth.execute({ ...signed(), signature: undefined }))).toBe('MISSING_AUTH_HEADERS');
    expect(await codeOf(auth.execute(signed({ timestamp: '1' })))).toBe('TIMESTAMP_EXPIRED');
    expect(await codeOf(auth.execute(signed({ keyId: 'sk_test_nobody' })))).toBe('INVALID_API_KEY');
    const ok = signed();
    expect(await codeOf(auth.execute(ok))).toBe('OK');
    expect(await codeOf(auth.execute(ok))).toBe('REPLAY_DETECTED');
    world.store.workspaces.get(key().workspaceId)!.status = 'INACTIVE';
    for (let i = 0; i < 3; i++) expect(await codeOf(auth.execute(signed({ path: `/v2/chains?i=${i}` })))).toBe('WORKSPACE_INACTIVE');
    expect(await codeOf(auth.execute(signed({ signature: 'f'.repeat(64) })))).toBe('INVALID_SIGNATURE');
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?after' })))).toBe('RATE_LIMITED');
  });
});

describe('AuthenticateRequest on kept credentials (ADR 0008)', () => {
  /** The store keeps what it read, as PgCredentialStore does; `reads` counts the reads that were not kept copies. */
  async function keeping(admission?: InMemoryRequestAdmission) {
    const s = await setup();
    const credentials = new InMemoryCredentialStore(s.world.store, true);
    let reads = 0;
    const find = credentials.findCredential.bind(credentials);
    credentials.findCredential = async (id, opts) => {
      const c = await find(id, opts);
      if (c && !c.remembered) reads++;
      return c;
    };
    const auth = new AuthenticateRequest(credentials, admission ?? s.world.admission, s.world.cipher, s.world.signer, s.world.clock, s.throttle);
    return { ...s, auth, reads: () => reads };
  }

  it('reads a key once while it stays as it was read', async () => {
    const { auth, signed, reads } = await keeping();
    for (let i = 0; i < 5; i++) expect(await codeOf(auth.execute(signed({ path: `/v2/chains?i=${i}` })))).toBe('OK');
    expect(reads()).toBe(1);
  });

  it('refuses a key revoked after it was kept on the very next request, and records nothing for it', async () => {
    const { auth, signed, key } = await keeping();
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?warm' })))).toBe('OK');
    const request = signed({ path: '/v2/chains?after-revoking' });
    key().revokedAt = new Date();
    expect(await codeOf(auth.execute(request))).toBe('INVALID_API_KEY');
    // Nothing was admitted: the same signature is not a replay once the key is back.
    key().revokedAt = null;
    expect(await codeOf(auth.execute(request))).toBe('OK');
  });

  it('narrows at once: a smaller allowlist, an expiry passed, fewer scopes, a deactivated workspace', async () => {
    const { auth, signed, key, world, created } = await keeping();
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?warm' })))).toBe('OK');
    key().allowedIps = ['10.0.0.0/8'];
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?ip' })))).toBe('IP_NOT_ALLOWED');
    key().allowedIps = [];
    key().expiresAt = new Date(world.clock.now().getTime() - 1000);
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?expired' })))).toBe('API_KEY_EXPIRED');
    key().expiresAt = null;
    key().scopes = ['fees:read'];
    expect([...(await auth.execute(signed({ path: '/v2/chains?scopes' }))).scopes]).toEqual(['fees:read']);
    world.store.workspaces.get(created.workspaceId)!.status = 'INACTIVE';
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?inactive' })))).toBe('WORKSPACE_INACTIVE');
  });

  it('widens at once: a refusal decided on a kept copy is decided again on a fresh read (a new secret, an allowlist or expiry widened)', async () => {
    const { auth, signed, key, world } = await keeping();
    key().allowedIps = ['10.0.0.0/8'];
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?ip' })))).toBe('IP_NOT_ALLOWED');
    key().allowedIps = [];
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?ip-widened' })))).toBe('OK');
    key().expiresAt = new Date(world.clock.now().getTime() - 1000);
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?expired' })))).toBe('API_KEY_EXPIRED');
    key().expiresAt = new Date(world.clock.now().getTime() + 3_600_000);
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?extended' })))).toBe('OK');
    key().secretCiphertext = world.cipher.encrypt('a-new-secret');
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?new', secret: 'a-new-secret' })))).toBe('OK');
    expect(await codeOf(auth.execute(signed({ path: '/v2/chains?old' })))).toBe('INVALID_SIGNATURE');
  });

  it('refuses a key that changes between every read and its admission, after three fresh reads', async () => {
    const s = await setup();
    const { auth, signed, reads } = await keeping(new InMemoryRequestAdmission(s.world.clock, undefined, () => 'changed again'));
    expect(await codeOf(auth.execute(signed()))).toBe('INVALID_API_KEY');
    expect(reads()).toBe(4);
  });
});
