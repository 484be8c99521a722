// The retry schedule of webhook deliveries, on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, afterAttempt, envelope, newDelivery, type DeliveryState } from '../../../src/domain/webhooks/delivery-schedule.js';

const t0 = new Date('2026-11-23T10:00:00.000Z');
const plus = (d: Date, ms: number) => new Date(d.getTime() + ms);

describe('delivery schedule', () => {
  it('is due at once, then 1, 2, 4 and 8 minutes after each failure, and FAILED for good after the fifth', () => {
    let state: DeliveryState = newDelivery(t0);
    expect(state).toEqual({ status: 'PENDING', attempts: 0, maxAttempts: 5, nextAttemptAt: t0 });
    const gaps: number[] = [];
    for (let i = 1; i < MAX_ATTEMPTS; i++) {
      const at = plus(state.nextAttemptAt!, 10_000); // the attempt timed out after 10 s
      state = afterAttempt(state, false, at);
      expect(state.status).toBe('PENDING');
      expect(state.attempts).toBe(i);
      gaps.push(state.nextAttemptAt!.getTime() - at.getTime());
    }
    expect(gaps).toEqual([60_000, 120_000, 240_000, 480_000]);
    state = afterAttempt(state, false, plus(state.nextAttemptAt!, 1));
    expect(state).toEqual({ status: 'FAILED', attempts: 5, maxAttempts: 5, nextAttemptAt: null });
    expect(() => afterAttempt(state, true, t0)).toThrow();
  });

  it('delivers on the attempt that gets a 2xx, counting it', () => {
    let state = afterAttempt(newDelivery(t0), false, t0);
    state = afterAttempt(state, false, plus(t0, 60_000));
    state = afterAttempt(state, false, plus(t0, 180_000));
    state = afterAttempt(state, true, plus(t0, 420_000));
    expect(state).toEqual({ status: 'DELIVERED', attempts: 4, maxAttempts: 5, nextAttemptAt: null });
  });

  it('serialises the envelope once, as { event, created_at, data }', () => {
    expect(envelope('WITHDRAWAL_POLICY_CHANGED', t0, { workspace_id: 'w', daily_limit: '1000.000000' })).toBe(
      '{"event":"WITHDRAWAL_POLICY_CHANGED","created_at":"2026-11-23T10:00:00.000Z","data":{"workspace_id":"w","daily_limit":"1000.000000"}}',
    );
  });
});
