// Which failures the client repeats, and how long it waits before doing so.
import { describe, expect, it } from 'vitest';
import { nextRetryDelayMs, type AttemptOutcome, type RetrySettings } from '../../../src/sdk/retry-policy.js';

const SETTINGS: RetrySettings = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 1000, maxRetryAfterSeconds: 60 };
const status = (s: number, code = 'X', retryAfterSeconds: number | null = null): AttemptOutcome => ({
  kind: 'response',
  status: s,
  code,
  retryAfterSeconds,
});
const CONNECTION: AttemptOutcome = { kind: 'connection' };
const top = () => 0.999999;
const bottom = () => 0;

describe('nextRetryDelayMs', () => {
  it('backs off exponentially from the base, capped, with 50–100 % jitter', () => {
    expect(nextRetryDelayMs('GET', false, CONNECTION, 0, SETTINGS, bottom)).toBe(125);
    expect(nextRetryDelayMs('GET', false, CONNECTION, 0, SETTINGS, top)).toBeCloseTo(250);
    expect(nextRetryDelayMs('GET', false, CONNECTION, 1, SETTINGS, top)).toBeCloseTo(500);
    expect(nextRetryDelayMs('GET', false, CONNECTION, 2, SETTINGS, top)).toBeCloseTo(1000);
    expect(nextRetryDelayMs('GET', false, CONNECTION, 2, { ...SETTINGS, maxRetries: 5 }, top)).toBeCloseTo(1000);
    expect(nextRetryDelayMs('GET', false, CONNECTION, 4, { ...SETTINGS, maxRetries: 5 }, top)).toBeCloseTo(1000);
  });

  it('stops after maxRetries', () => {
    expect(nextRetryDelayMs('GET', false, CONNECTION, 3, SETTINGS)).toBeNull();
    expect(nextRetryDelayMs('GET', false, CONNECTION, 0, { ...SETTINGS, maxRetries: 0 })).toBeNull();
  });

  it('repeats GET and DELETE after a lost connection or a 5xx, a POST only with an idempotency key', () => {
    for (const outcome of [CONNECTION, status(500), status(502), status(503, 'DATABASE_ERROR')]) {
      expect(nextRetryDelayMs('GET', false, outcome, 0, SETTINGS)).not.toBeNull();
      expect(nextRetryDelayMs('DELETE', false, outcome, 0, SETTINGS)).not.toBeNull();
      expect(nextRetryDelayMs('POST', true, outcome, 0, SETTINGS)).not.toBeNull();
      expect(nextRetryDelayMs('POST', false, outcome, 0, SETTINGS)).toBeNull();
      expect(nextRetryDelayMs('PATCH', false, outcome, 0, SETTINGS)).toBeNull();
    }
  });

  it('never repeats a request the server refused on its merits', () => {
    for (const outcome of [status(400), status(401, 'INVALID_SIGNATURE'), status(403), status(404), status(409, 'CONFLICT'), status(413), status(415), status(422)]) {
      expect(nextRetryDelayMs('GET', false, outcome, 0, SETTINGS)).toBeNull();
      expect(nextRetryDelayMs('POST', true, outcome, 0, SETTINGS)).toBeNull();
    }
  });

  it('repeats a create whose key is still in flight (409 IDEMPOTENCY_CONFLICT)', () => {
    expect(nextRetryDelayMs('POST', true, status(409, 'IDEMPOTENCY_CONFLICT'), 0, SETTINGS)).not.toBeNull();
  });

  it('repeats what was refused before running, whatever the method: 429 and REPLAY_DETECTED', () => {
    expect(nextRetryDelayMs('POST', false, status(429, 'RATE_LIMITED'), 0, SETTINGS)).not.toBeNull();
    expect(nextRetryDelayMs('POST', false, status(401, 'REPLAY_DETECTED'), 0, SETTINGS)).not.toBeNull();
  });

  it('waits at least Retry-After, and hands a wait above maxRetryAfterSeconds to the caller', () => {
    expect(nextRetryDelayMs('GET', false, status(429, 'RATE_LIMITED', 2), 0, SETTINGS, top)).toBe(2000);
    expect(nextRetryDelayMs('GET', false, status(429, 'RATE_LIMITED', 0), 0, SETTINGS, top)).toBeCloseTo(250);
    expect(nextRetryDelayMs('GET', false, status(429, 'RATE_LIMITED', 61), 0, SETTINGS)).toBeNull();
  });
});
