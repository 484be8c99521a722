// The sign-in rules of the dashboard (ADR 0033), pure: when an address is
// locked out and until when, and when a session still lets its holder in.
import { describe, expect, it } from 'vitest';
import { FAILURE_WINDOW_MINUTES, lockedUntil, PAIR_LIMIT, SOURCE_LIMIT } from '../../../src/domain/members/lockout.js';
import { ABSOLUTE_HOURS, IDLE_MINUTES, sessionExpiry, sessionLive, type Session } from '../../../src/domain/members/session.js';

const at = new Date('2026-11-27T10:00:00Z');
const minutes = (n: number) => new Date(at.getTime() + n * 60_000);

describe('lockout', () => {
  it('locks the (email, address) pair at its limit, until its oldest failure leaves the window', () => {
    expect(lockedUntil({ pair: PAIR_LIMIT - 1, pairOldest: at, source: PAIR_LIMIT - 1, sourceOldest: at })).toBeNull();
    expect(lockedUntil({ pair: PAIR_LIMIT, pairOldest: at, source: PAIR_LIMIT, sourceOldest: at })).toEqual(minutes(FAILURE_WINDOW_MINUTES));
  });

  it('locks an address that fails for many emails, and keeps the later of two ends', () => {
    expect(lockedUntil({ pair: 0, pairOldest: null, source: SOURCE_LIMIT - 1, sourceOldest: at })).toBeNull();
    expect(lockedUntil({ pair: 0, pairOldest: null, source: SOURCE_LIMIT, sourceOldest: at })).toEqual(minutes(FAILURE_WINDOW_MINUTES));
    expect(lockedUntil({ pair: PAIR_LIMIT, pairOldest: minutes(5), source: SOURCE_LIMIT, sourceOldest: at })).toEqual(minutes(5 + FAILURE_WINDOW_MINUTES));
  });
});

describe('sessions', () => {
  const session = (fields: Partial<Session> = {}): Session => ({
    id: 's', memberId: 'm', workspaceId: 'w', tokenHash: 'h', csrfToken: 'c', createdAt: at, lastSeenAt: at, expiresAt: sessionExpiry(at), endedAt: null, source: '127.0.0.1', ...fields,
  });

  it('lives while used within the idle time, up to the absolute end', () => {
    expect(sessionLive(session(), minutes(IDLE_MINUTES - 1))).toBe(true);
    expect(sessionLive(session(), minutes(IDLE_MINUTES))).toBe(false);
    const busy = session({ lastSeenAt: minutes(ABSOLUTE_HOURS * 60 - 1) });
    expect(sessionLive(busy, minutes(ABSOLUTE_HOURS * 60 - 0.5))).toBe(true);
    expect(sessionLive(busy, minutes(ABSOLUTE_HOURS * 60))).toBe(false);
  });

  it('is over once ended, whatever the time', () => {
    expect(sessionLive(session({ endedAt: at }), at)).toBe(false);
  });
});
