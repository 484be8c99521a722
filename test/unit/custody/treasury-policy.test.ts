// The treasury policy's cold address waits for its cooling-off; the limits
// apply at once; a pending change can be cancelled; shortening the period
// waits for the period in force.
import { describe, expect, it } from 'vitest';
import { cancelPending, changePolicy, checkLimits, inForce, type TreasuryPolicy } from '../../../src/domain/custody/treasury-policy.js';

const t0 = new Date('2026-11-27T12:00:00Z');
const hours = (h: number) => new Date(t0.getTime() + h * 3_600_000);
const limits = { network: 'ETH_TESTNET' as const, asset: 'USDT_ETH' as const, ceiling: 100_000_000n, targetFloat: 50_000_000n, floor: 20_000_000n };
const COLD = '0x1111111111111111111111111111111111111111';
const OTHER = '0x2222222222222222222222222222222222222222';

describe('treasury policy', () => {
  it('takes a first cold address after the default 48 h, the limits at once', () => {
    const p = changePolicy(null, { ...limits, coldAddress: COLD }, t0);
    expect(p).toMatchObject({ coldAddress: null, ceiling: 100_000_000n, coolingOffHours: 48, pending: { coldAddress: COLD, effectiveAt: hours(48) } });
    expect(inForce(p, hours(47.9)).coldAddress).toBeNull();
    expect(inForce(p, hours(48))).toMatchObject({ coldAddress: COLD, pending: null });
  });

  it('takes a first cold address at once when set with no cooling-off', () => {
    const p = changePolicy(null, { ...limits, coldAddress: COLD, coolingOffHours: 0 }, t0);
    expect(inForce(p, t0)).toMatchObject({ coldAddress: COLD, coolingOffHours: 0 });
  });

  it('takes a first address with the period it is set with after a first change was cancelled, while a waiting one keeps its period', () => {
    const waiting = changePolicy(null, { ...limits, coldAddress: COLD }, t0);
    // Replacing a first address that waits: the period in force (48 h), whatever the new one says.
    expect(changePolicy(waiting, { ...limits, coldAddress: OTHER, coolingOffHours: 0 }, hours(1))).toMatchObject({ pending: { coldAddress: OTHER, effectiveAt: hours(49) } });
    const cancelled = cancelPending(waiting, hours(1))!;
    const again = changePolicy(cancelled, { ...limits, coldAddress: COLD, coolingOffHours: 0 }, hours(2));
    expect(inForce(again, hours(2))).toMatchObject({ coldAddress: COLD, coolingOffHours: 0, pending: null });
    // Never below the deployment's minimum.
    expect(changePolicy(cancelled, { ...limits, coldAddress: COLD, coolingOffHours: 24 }, hours(2), 24)).toMatchObject({ pending: { effectiveAt: hours(26) } });
  });

  it('makes a new cold address wait for the period in force, and a cancelled one never takes effect', () => {
    const first = inForce(changePolicy(null, { ...limits, coldAddress: COLD, coolingOffHours: 24 }, t0), hours(24));
    const changed = changePolicy(first, { ...limits, coldAddress: OTHER }, hours(25));
    expect(changed).toMatchObject({ coldAddress: COLD, pending: { coldAddress: OTHER, effectiveAt: hours(49) } });
    expect(inForce(changed, hours(48)).coldAddress).toBe(COLD);
    const cancelled = cancelPending(changed, hours(30))!;
    expect(cancelled).toMatchObject({ coldAddress: COLD, pending: null });
    expect(inForce(cancelled, hours(1000)).coldAddress).toBe(COLD);
    expect(cancelPending(cancelled, hours(31))).toBeNull();
  });

  it('waits for the old period to shorten it, raises it at once, and changes the limits alone at once', () => {
    const first = inForce(changePolicy(null, { ...limits, coldAddress: COLD, coolingOffHours: 48 }, t0), hours(48));
    const shorter = changePolicy(first, { ...limits, coolingOffHours: 0 }, hours(50));
    expect(shorter).toMatchObject({ coolingOffHours: 48, pending: { coldAddress: COLD, coolingOffHours: 0, effectiveAt: hours(98) } });
    // Changing the address at once with the new period is not possible: still 48 h from the change, and the new
    // address keeps the period in force (the shortening it replaces is gone with it).
    const sneaky = changePolicy(shorter, { ...limits, coldAddress: OTHER }, hours(51));
    expect(sneaky.pending).toMatchObject({ coldAddress: OTHER, coolingOffHours: 48, effectiveAt: hours(99) });
    const longer = changePolicy(first, { ...limits, coolingOffHours: 72 }, hours(50));
    expect(longer).toMatchObject({ coolingOffHours: 72, pending: null });
    const lower = changePolicy(first, { ...limits, ceiling: 60_000_000n }, hours(50));
    expect(lower).toMatchObject({ coldAddress: COLD, ceiling: 60_000_000n, pending: null });
  });

  it('withdraws a waiting change when the address in force is named again, and never lets a new address inherit the waiting change’s period', () => {
    const first = inForce(changePolicy(null, { ...limits, coldAddress: COLD, coolingOffHours: 48 }, t0), hours(48));
    // Someone asks for OTHER with a period of 0 (it waits 48 h, and would then make every later change immediate).
    const attack = changePolicy(first, { ...limits, coldAddress: OTHER, coolingOffHours: 0 }, hours(50));
    expect(attack.pending).toMatchObject({ coldAddress: OTHER, coolingOffHours: 0 });
    // Naming COLD again withdraws it: nothing waits, the period in force stays 48 h.
    const back = changePolicy(attack, { ...limits, coldAddress: COLD }, hours(51));
    expect(back).toMatchObject({ coldAddress: COLD, coolingOffHours: 48, pending: null });
    // A third address asked while the attack waits keeps the period in force (48 h), not the attack's 0.
    const third = changePolicy(attack, { ...limits, coldAddress: '0x5555555555555555555555555555555555555555' }, hours(51));
    expect(third.pending).toMatchObject({ coolingOffHours: 48, effectiveAt: hours(99) });
  });

  it("keeps to the deployment's minimum cooling-off: a first address never takes effect at once in production", () => {
    expect(() => changePolicy(null, { ...limits, coldAddress: COLD, coolingOffHours: 0 }, t0, 24)).toThrow(/at least 24/);
    expect(changePolicy(null, { ...limits, coldAddress: COLD }, t0, 24).pending).toMatchObject({ effectiveAt: hours(48) });
    expect(changePolicy(null, { ...limits, coldAddress: COLD, coolingOffHours: 30 }, t0, 24).pending).toMatchObject({ effectiveAt: hours(30) });
  });

  it('refuses limits that would forward or refill in a loop, and a policy with no cold address', () => {
    expect(() => checkLimits({ ceiling: 0n, targetFloat: 0n, floor: 0n })).toThrow(/ceiling/);
    expect(() => checkLimits({ ceiling: 10n, targetFloat: 11n, floor: 0n })).toThrow(/target float/);
    expect(() => checkLimits({ ceiling: 10n, targetFloat: 5n, floor: 6n })).toThrow(/floor/);
    expect(() => changePolicy(null, { ...limits, coolingOffHours: 5 }, t0)).toThrow(/cold address/);
    const none: TreasuryPolicy | null = null;
    expect(() => changePolicy(none, limits, t0)).toThrow(/cold address/);
  });
});
