// Failed authentications over real HTTP: a source that keeps failing gets
// 429 RATE_LIMITED with Retry-After before any key is looked up; other
// sources, and the key's owner on a clean address, are not concerned.
import { describe, expect, it } from 'vitest';
import { call, useTestApi } from '../support/harness.js';

const t = useTestApi({ env: { AUTH_FAILURE_BURST: '3', AUTH_FAILURE_RATE_PER_SECOND: '0.01', TRUST_PROXY: 'loopback' } });
const from = (ip: string) => ({ 'X-Forwarded-For': ip });

describe('failed-authentication throttle over HTTP', () => {
  it('answers 429 RATE_LIMITED with Retry-After once a source has failed its burst', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${t.api.baseUrl}/v2/chains`, { headers: from('198.51.100.1') });
      expect(res.status).toBe(401);
    }
    const refused = await fetch(`${t.api.baseUrl}/v2/chains`, { headers: from('198.51.100.1') });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: expect.any(String), code: 'RATE_LIMITED', details: { retry_after_seconds: 100 } });
    expect(refused.headers.get('retry-after')).toBe('100');
    // Even a correctly signed request from that source waits: nothing is looked up for it.
    const signed = await call(t.api.baseUrl, t.ws.testKey, { path: '/v2/chains?a=1', headers: from('198.51.100.1') });
    expect(signed.status).toBe(429);
    // Another source is served.
    expect((await call(t.api.baseUrl, t.ws.testKey, { path: '/v2/chains?a=2', headers: from('198.51.100.2') })).status).toBe(200);
  });

  it('lets no more than the burst of 300 bad signatures sent at once reach the signature check, and every honest parallel request through', async () => {
    const forged = { keyId: t.ws.testKey.keyId, secret: 'not-the-secret' };
    const bad = await Promise.all(Array.from({ length: 300 }, (_, i) => call(t.api.baseUrl, forged, { path: `/v2/chains?flood=${i}`, headers: from('198.51.100.77') })));
    const count = (status: number) => bad.filter((r) => r.status === status).length;
    expect([count(401), count(429), count(401) + count(429)]).toEqual([3, 297, 300]);
    // The same number of correctly signed requests at once from a clean source: none is refused.
    const good = await Promise.all(Array.from({ length: 60 }, (_, i) => call(t.api.baseUrl, t.ws.testKey, { path: `/v2/chains?parallel=${i}`, headers: from('198.51.100.78') })));
    expect(good.map((r) => r.status)).toEqual(Array.from({ length: 60 }, () => 200));
  });

  it('throttles bad signatures naming one key from many sources, without locking out its owner on a clean address', async () => {
    const victim = t.ws.liveKey;
    const forged = { keyId: victim.keyId, secret: 'not-the-secret' };
    // 30 sources, one bad signature each: the key id's bucket (burst 30) is empty.
    for (let i = 0; i < 30; i++) {
      expect((await call(t.api.baseUrl, forged, { path: `/v2/chains?f=${i}`, headers: from(`203.0.113.${i}`) })).status).toBe(401);
    }
    // A source that has failed once (its own bucket not empty) is refused on the key id.
    const again = await call(t.api.baseUrl, forged, { path: '/v2/chains?again', headers: from('203.0.113.5') });
    expect([again.status, again.body.code]).toEqual([429, 'RATE_LIMITED']);
    // The owner, calling from an address that never failed, is served.
    expect((await call(t.api.baseUrl, victim, { path: '/v2/chains?owner', headers: from('192.0.2.44') })).status).toBe(200);
  });
});
