// Which failures the client repeats, and how long it waits before doing so.
import { describe, expect, it } from 'vitest';
import { nextRetryDelayMs, type AttemptOutcome, type RetriedRequest, type RetrySettings } from '../../../src/sdk/retry-policy.js';

const SETTINGS: RetrySettings = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 1000, maxRetryAfterSeconds: 60 };
const status = (s: number, code = 'X', retryAfterSeconds: number | null = null): AttemptOutcome => ({
  kind: 'response',
  status: s,
  code,
  retryAfterSeconds,
});
const CONNECTION: AttemptOutcome = { kind: 'connection' };
const GET: RetriedRequest = { method: 'GET', hasIdempotencyKey: false };
const DELETE: RetriedRequest = { method: 'DELETE', hasIdempotencyKey: false };
const PATCH: RetriedRequest = { method: 'PATCH', hasIdempotencyKey: false };
const POST: RetriedRequest = { method: 'POST', hasIdempotencyKey: false };
const POST_KEYED: RetriedRequest = { method: 'POST', hasIdempotencyKey: true };
/** A POST that only reads, such as a fee quote: no key, marked safe. */
const POST_SAFE: RetriedRequest = { method: 'POST', hasIdempotencyKey: false, safe: true };
const top = () => 0.999999;
const bottom = () => 0;

describe('nextRetryDelayMs', () => {
  it('backs off exponentially from the base, capped, with 50–100 % jitter', () => {
    expect(nextRetryDelayMs(GET, CONNECTION, 0, SETTINGS, bottom)).toBe(125);
    expect(nextRetryDelayMs(GET, CONNECTION, 0, SETTINGS, top)).toBeCloseTo(250);
    expect(nextRetryDelayMs(GET, CONNECTION, 1, SETTINGS, top)).toBeCloseTo(500);
    expect(nextRetryDelayMs(GET, CONNECTION, 2, SETTINGS, top)).toBeCloseTo(1000);
    expect(nextRetryDelayMs(GET, CONNECTION, 2, { ...SETTINGS, maxRetries: 5 }, top)).toBeCloseTo(1000);
    expect(nextRetryDelayMs(GET, CONNECTION, 4, { ...SETTINGS, maxRetries: 5 }, top)).toBeCloseTo(1000);
  });

  it('stops after maxRetries', () => {
    expect(nextRetryDelayMs(GET, CONNECTION, 3, SETTINGS)).toBeNull();
    expect(nextRetryDelayMs(GET, CONNECTION, 0, { ...SETTINGS, maxRetries: 0 })).toBeNull();
  });

  it('repeats GET and DELETE after a lost connection or a 5xx, a POST only with an idempotency key', () => {
    for (const outcome of [CONNECTION, status(500), status(502), status(503, 'DATABASE_ERROR')]) {
      expect(nextRetryDelayMs(GET, outcome, 0, SETTINGS)).not.toBeNull();
      expect(nextRetryDelayMs(DELETE, outcome, 0, SETTINGS)).not.toBeNull();
      expect(nextRetryDelayMs(POST_KEYED, outcome, 0, SETTINGS)).not.toBeNull();
      expect(nextRetryDelayMs(POST, outcome, 0, SETTINGS)).toBeNull();
      expect(nextRetryDelayMs(PATCH, outcome, 0, SETTINGS)).toBeNull();
    }
  });

  it('repeats a POST marked safe after a lost connection or a 5xx, without an idempotency key', () => {
    for (const outcome of [CONNECTION, status(500), status(503, 'DATABASE_ERROR')]) {
      expect(nextRetryDelayMs(POST_SAFE, outcome, 0, SETTINGS)).not.toBeNull();
      expect(nextRetryDelayMs({ ...POST_SAFE, safe: false }, outcome, 0, SETTINGS)).toBeNull();
    }
    expect(nextRetryDelayMs(POST_SAFE, CONNECTION, 2, SETTINGS, top)).toBeCloseTo(1000);
    expect(nextRetryDelayMs(POST_SAFE, CONNECTION, 3, SETTINGS)).toBeNull();
  });

  it('never repeats a request the server refused on its merits', () => {
    for (const outcome of [status(400), status(401, 'INVALID_SIGNATURE'), status(403), status(404), status(409, 'CONFLICT'), status(413), status(415), status(422)]) {
      expect(nextRetryDelayMs(GET, outcome, 0, SETTINGS)).toBeNull();
      expect(nextRetryDelayMs(POST_KEYED, outcome, 0, SETTINGS)).toBeNull();
      expect(nextRetryDelayMs(POST_SAFE, outcome, 0, SETTINGS)).toBeNull();
    }
  });

  it('repeats a create whose key is still in flight (409 IDEMPOTENCY_CONFLICT)', () => {
    expect(nextRetryDelayMs(POST_KEYED, status(409, 'IDEMPOTENCY_CONFLICT'), 0, SETTINGS)).not.toBeNull();
    // Without a key there is no first request to wait for.
    expect(nextRetryDelayMs(POST_SAFE, status(409, 'IDEMPOTENCY_CONFLICT'), 0, SETTINGS)).toBeNull();
  });

  it('repeats what was refused before running, whatever the method: 429 and REPLAY_DETECTED', () => {
    expect(nextRetryDelayMs(POST, status(429, 'RATE_LIMITED'), 0, SETTINGS)).not.toBeNull();
    expect(nextRetryDelayMs(POST, status(401, 'REPLAY_DETECTED'), 0, SETTINGS)).not.toBeNull();
  });

  it('waits at least Retry-After, and hands a wait above maxRetryAfterSeconds to the caller', () => {
    expect(nextRetryDelayMs(GET, status(429, 'RATE_LIMITED', 2), 0, SETTINGS, top)).toBe(2000);
    expect(nextRetryDelayMs(GET, status(429, 'RATE_LIMITED', 0), 0, SETTINGS, top)).toBeCloseTo(250);
    expect(nextRetryDelayMs(GET, status(429, 'RATE_LIMITED', 61), 0, SETTINGS)).toBeNull();
  });
});
