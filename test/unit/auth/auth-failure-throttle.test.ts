// Failed authentications are throttled per source (IPv6 by /64) and per key
// id before any lookup; a key's owner on a clean address is never locked out.
// A source's token is taken before the work and given back on success, so a
// burst of bad requests sent at once gets no further than the bucket holds.
import { describe, expect, it } from 'vitest';
import { AuthFailureThrottle, sourceOf, type AdmissionTicket } from '../../../src/domain/auth/auth-failure-throttle.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

/** A request that is admitted and fails to authenticate (against the key when it names one). */
function fail(th: AuthFailureThrottle, ip: string, keyId: string | undefined, now: Date): void {
  const admission = th.admit(ip, keyId, now);
  if (!('ticket' in admission)) throw new Error(`not admitted: ${JSON.stringify(admission)}`);
  th.settle(admission.ticket, { againstKey: keyId !== undefined }, now);
}

/** Whether a request would be let through now: null (admitted, then succeeded), the seconds to wait, or 'wait'. */
function probe(th: AuthFailureThrottle, ip: string, keyId: string | undefined, now: Date): number | 'wait' | null {
  const admission = th.admit(ip, keyId, now);
  if ('ticket' in admission) {
    th.settle(admission.ticket, null, now);
    return null;
  }
  return 'wait' in admission ? 'wait' : admission.retryAfterSeconds;
}

function ticketOf(th: AuthFailureThrottle, ip: string, keyId: string | undefined, now: Date): AdmissionTicket {
  const admission = th.admit(ip, keyId, now);
  if (!('ticket' in admission)) throw new Error(`not admitted: ${JSON.stringify(admission)}`);
  return admission.ticket;
}

describe('AuthFailureThrottle', () => {
  it('lets a source fail a burst, then refuses it until a token is back, with the seconds to wait', () => {
    const th = new AuthFailureThrottle({ ratePerSecond: 0.5, burst: 3 });
    for (let i = 0; i < 3; i++) {
      expect(probe(th, '198.51.100.7', undefined, t0)).toBeNull();
      fail(th, '198.51.100.7', undefined, t0);
    }
    expect(probe(th, '198.51.100.7', undefined, t0)).toBe(2);
    expect(probe(th, '198.51.100.7', undefined, at(1500))).toBe(1);
    expect(probe(th, '198.51.100.7', undefined, at(2000))).toBeNull();
    // Another source is not concerned.
    expect(probe(th, '198.51.100.8', undefined, t0)).toBeNull();
  });

  it('takes the token before the work: bad requests sent at once get no further than the burst', () => {
    const th = new AuthFailureThrottle({ ratePerSecond: 1, burst: 3 });
    // Three in flight at once hold every token: the fourth waits for them, it is not let through.
    const held = [0, 1, 2].map(() => ticketOf(th, '198.51.100.7', undefined, t0));
    expect(th.admit('198.51.100.7', undefined, t0)).toEqual({ wait: true });
    th.settle(held[0]!, { againstKey: false }, t0);
    expect(th.admit('198.51.100.7', undefined, t0)).toEqual({ wait: true }); // two still in flight, none given back
    th.settle(held[1]!, { againstKey: false }, t0);
    th.settle(held[2]!, { againstKey: false }, t0);
    // All three failed: nothing in flight, nothing left, so later.
    expect(th.admit('198.51.100.7', undefined, t0)).toEqual({ retryAfterSeconds: 1 });
  });

  it("gives the token back on success: an honest client's parallel requests all pass, waiting their turn", () => {
    const th = new AuthFailureThrottle({ ratePerSecond: 1, burst: 3 });
    const held = [0, 1, 2].map(() => ticketOf(th, '198.51.100.7', 'sk_test_k', t0));
    expect(th.admit('198.51.100.7', 'sk_test_k', t0)).toEqual({ wait: true });
    th.settle(held[0]!, null, t0);
    const next = ticketOf(th, '198.51.100.7', 'sk_test_k', t0);
    for (const t of [held[1]!, held[2]!, next]) th.settle(t, null, t0);
    // Every token is back: nothing remembered, the source is clean.
    for (let i = 0; i < 3; i++) expect(probe(th, '198.51.100.7', undefined, t0)).toBeNull();
  });

  it('counts IPv4 and its mapped IPv6 form as one source, and IPv6 by its /64', () => {
    expect(sourceOf('::ffff:198.51.100.7')).toBe(sourceOf('198.51.100.7'));
    expect(sourceOf('2001:db8:1:2::1')).toBe(sourceOf('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(sourceOf('2001:db8:1:2::1')).not.toBe(sourceOf('2001:db8:1:3::1'));
    const th = new AuthFailureThrottle({ ratePerSecond: 1, burst: 2 });
    fail(th, '2001:db8:1:2::1', undefined, t0);
    fail(th, '2001:db8:1:2::dead:beef', undefined, t0);
    expect(probe(th, '2001:db8:1:2::9', undefined, t0)).toBe(1);
  });

  it('refuses a key id that failed too often, but only to sources that failed themselves', () => {
    const th = new AuthFailureThrottle({ ratePerSecond: 1, burst: 1 }); // key id: burst 10, 10/s
    // Ten attackers, one bad signature each, all naming the same key.
    for (let i = 0; i < 10; i++) fail(th, `203.0.113.${i}`, 'sk_test_victim', t0);
    // An attacker that failed is refused on the key id (its own bucket is empty too).
    expect(probe(th, '203.0.113.1', 'sk_test_victim', t0)).not.toBeNull();
    // The owner on a clean address is let through to authenticate.
    expect(probe(th, '192.0.2.10', 'sk_test_victim', t0)).toBeNull();
    // A source with one failure left in its own bucket is still refused on the exhausted key id.
    const th2 = new AuthFailureThrottle({ ratePerSecond: 1, burst: 2 });
    for (let i = 0; i < 20; i++) fail(th2, `203.0.113.${i}`, 'sk_test_victim', t0);
    fail(th2, '192.0.2.99', undefined, t0);
    expect(probe(th2, '192.0.2.99', undefined, t0)).toBeNull();
    expect(probe(th2, '192.0.2.99', 'sk_test_victim', t0)).toBe(1);
    expect(probe(th2, '192.0.2.99', 'sk_test_other', t0)).toBeNull();
  });

  it("never reads an honest client's requests in flight as failures: the exhausted key id does not apply to it", () => {
    const th = new AuthFailureThrottle({ ratePerSecond: 1, burst: 2 });
    for (let i = 0; i < 20; i++) fail(th, `203.0.113.${i}`, 'sk_test_victim', t0);
    const inFlight = ticketOf(th, '192.0.2.10', 'sk_test_victim', t0);
    expect(probe(th, '192.0.2.10', 'sk_test_victim', t0)).toBeNull();
    th.settle(inFlight, null, t0);
  });

  it('forgets a source once its bucket is full again', () => {
    const th = new AuthFailureThrottle({ ratePerSecond: 1, burst: 2 });
    fail(th, '198.51.100.7', 'sk_test_k', t0);
    for (let i = 0; i < 20; i++) fail(th, `203.0.113.${i}`, 'sk_test_k', t0);
    expect(probe(th, '198.51.100.7', 'sk_test_k', at(50))).toBe(1);
    // After a second the source's bucket is full: it is clean, and the key-id bucket no longer applies to it.
    expect(probe(th, '198.51.100.7', 'sk_test_k', at(1000))).toBeNull();
  });
});
