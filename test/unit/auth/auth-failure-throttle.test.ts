// Failed authentications are throttled per source (IPv6 by /64) and per key
// id before any lookup; a key's owner on a clean address is never locked out.
import { describe, expect, it } from 'vitest';
import { AuthFailureThrottle, sourceOf } from '../../../src/domain/auth/auth-failure-throttle.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

describe('AuthFailureThrottle', () => {
  it('lets a source fail a burst, then refuses it until a token is back, with the seconds to wait', () => {
    const th = new AuthFailureThrottle({ ratePerSecond: 0.5, burst: 3 });
    for (let i = 0; i < 3; i++) {
      expect(th.retryAfter('198.51.100.7', undefined, t0)).toBeNull();
      th.recordFailure('198.51.100.7', undefined, t0);
    }
    expect(th.retryAfter('198.51.100.7', undefined, t0)).toBe(2);
    expect(th.retryAfter('198.51.100.7', undefined, at(1500))).toBe(1);
    expect(th.retryAfter('198.51.100.7', undefined, at(2000))).toBeNull();
    // Another source is not concerned.
    expect(th.retryAfter('198.51.100.8', undefined, t0)).toBeNull();
  });

  it('counts IPv4 and its mapped IPv6 form as one source, and IPv6 by its /64', () => {
    expect(sourceOf('::ffff:198.51.100.7')).toBe(sourceOf('198.51.100.7'));
    expect(sourceOf('2001:db8:1:2::1')).toBe(sourceOf('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(sourceOf('2001:db8:1:2::1')).not.toBe(sourceOf('2001:db8:1:3::1'));
    const th = new AuthFailureThrottle({ ratePerSecond: 1, burst: 2 });
    th.recordFailure('2001:db8:1:2::1', undefined, t0);
    th.recordFailure('2001:db8:1:2::dead:beef', undefined, t0);
    expect(th.retryAfter('2001:db8:1:2::9', undefined, t0)).toBe(1);
  });

  it('refuses a key id that failed too often, but only to sources that failed themselves', () => {
    const th = new AuthFailureThrottle({ ratePerSecond: 1, burst: 1 }); // key id: burst 10, 10/s
    // Ten attackers, one bad signature each, all naming the same key.
    for (let i = 0; i < 10; i++) th.recordFailure(`203.0.113.${i}`, 'sk_test_victim', t0);
    // An attacker that failed is refused on the key id (its own bucket is empty too).
    expect(th.retryAfter('203.0.113.1', 'sk_test_victim', t0)).not.toBeNull();
    // The owner on a clean address is let through to authenticate.
    expect(th.retryAfter('192.0.2.10', 'sk_test_victim', t0)).toBeNull();
    // A source with one failure left in its own bucket is still refused on the exhausted key id.
    const th2 = new AuthFailureThrottle({ ratePerSecond: 1, burst: 2 });
    for (let i = 0; i < 20; i++) th2.recordFailure(`203.0.113.${i}`, 'sk_test_victim', t0);
    th2.recordFailure('192.0.2.99', undefined, t0);
    expect(th2.retryAfter('192.0.2.99', undefined, t0)).toBeNull();
    expect(th2.retryAfter('192.0.2.99', 'sk_test_victim', t0)).toBe(1);
    expect(th2.retryAfter('192.0.2.99', 'sk_test_other', t0)).toBeNull();
  });

  it('forgets a source once its bucket is full again', () => {
    const th = new AuthFailureThrottle({ ratePerSecond: 1, burst: 2 });
    th.recordFailure('198.51.100.7', 'sk_test_k', t0);
    for (let i = 0; i < 20; i++) th.recordFailure(`203.0.113.${i}`, 'sk_test_k', t0);
    expect(th.retryAfter('198.51.100.7', 'sk_test_k', at(50))).toBe(1);
    // After a second the source's bucket is full: it is clean, and the key-id bucket no longer applies to it.
    expect(th.retryAfter('198.51.100.7', 'sk_test_k', at(1000))).toBeNull();
  });
});
