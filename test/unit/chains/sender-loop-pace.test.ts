// When the chain-worker's sending loop takes its next step at once rather than after its interval
// (src/adapters/chains/sender-loop.ts, workFollows).
import { describe, expect, it } from 'vitest';
import { TANK_BALANCE_EVERY_MS, tankBalanceDue, workFollows } from '../../../src/adapters/chains/sender-loop.js';

const idle = () => ({
  sweeps: { toppedUp: 0, sweeping: 0, reclaimed: 0 },
  withdrawals: { pickedUp: 0 },
  drips: { requested: 0 },
  transfers: { signed: 0, confirmed: [] as { kind: string }[], failed: [] as { kind: string }[] },
});

describe('the sending loop’s pace', () => {
  it('waits its interval after a step that did nothing, or only settled transfers nobody waits for', () => {
    expect(workFollows(idle())).toBe(false);
    const settled = idle();
    settled.transfers.confirmed = [{ kind: 'SWEEP' }, { kind: 'WITHDRAWAL' }, { kind: 'ENERGY_RECLAIM' }];
    settled.transfers.failed = [{ kind: 'WITHDRAWAL' }];
    expect(workFollows(settled)).toBe(false);
  });

  it('follows at once after new work: a withdrawal picked up, a drip, a signature, a top-up, a sweep, a take-back', () => {
    for (const change of [
      (s: ReturnType<typeof idle>) => (s.withdrawals.pickedUp = 1),
      (s: ReturnType<typeof idle>) => (s.drips.requested = 1),
      (s: ReturnType<typeof idle>) => (s.transfers.signed = 1),
      (s: ReturnType<typeof idle>) => (s.sweeps.toppedUp = 1),
      (s: ReturnType<typeof idle>) => (s.sweeps.sweeping = 1),
      (s: ReturnType<typeof idle>) => (s.sweeps.reclaimed = 1),
    ]) {
      const step = idle();
      change(step);
      expect(workFollows(step)).toBe(true);
    }
  });

  it('follows at once when a transfer a sweep waits for is final: its top-up or its loan of energy', () => {
    for (const kind of ['GAS_TOPUP', 'ENERGY_DELEGATE']) {
      const confirmed = idle();
      confirmed.transfers.confirmed = [{ kind }];
      expect(workFollows(confirmed), kind).toBe(true);
      const failed = idle();
      failed.transfers.failed = [{ kind }];
      expect(workFollows(failed), kind).toBe(true);
    }
  });
});

describe('the gas tank balance gauge', () => {
  it('is read at the first step, after a step that moved or ended something, and otherwise once its last read is old', () => {
    const t0 = 1_000_000;
    expect(tankBalanceDue(undefined, t0, false)).toBe(true);
    expect(tankBalanceDue(t0, t0 + 500, false)).toBe(false);
    expect(tankBalanceDue(t0, t0 + TANK_BALANCE_EVERY_MS - 1, false)).toBe(false);
    expect(tankBalanceDue(t0, t0 + TANK_BALANCE_EVERY_MS, false)).toBe(true);
    expect(tankBalanceDue(t0, t0 + 500, true)).toBe(true);
  });
});
