// What the hot treasury forwards to cold storage and what it asks back.
import { describe, expect, it } from 'vitest';
import { refillToAsk, surplusToForward } from '../../../src/domain/custody/cold-forward.js';

const policy = { ceiling: 100n, targetFloat: 50n, floor: 20n };

describe('the hot float', () => {
  it('forwards what is free above the ceiling down to the float, never what unsent withdrawals need', () => {
    expect(surplusToForward({ held: 300n, reserved: 0n, bookedHot: 300n }, policy)).toBe(250n);
    expect(surplusToForward({ held: 100n, reserved: 0n, bookedHot: 100n }, policy)).toBe(0n); // at the ceiling: nothing
    expect(surplusToForward({ held: 101n, reserved: 0n, bookedHot: 101n }, policy)).toBe(51n);
    expect(surplusToForward({ held: 300n, reserved: 250n, bookedHot: 300n }, policy)).toBe(0n);
    expect(surplusToForward({ held: 300n, reserved: 120n, bookedHot: 300n }, policy)).toBe(130n);
    // The service's own funds in the treasury (unbooked: gas money, a gift) never go cold: only what the books hold hot.
    expect(surplusToForward({ held: 10_000n, reserved: 0n, bookedHot: 300n }, policy)).toBe(250n);
    expect(surplusToForward({ held: 10_000n, reserved: 0n, bookedHot: 90n }, policy)).toBe(0n);
    // Held on chain is the limit too: the books may hold more than is there (a transfer on its way).
    expect(surplusToForward({ held: 120n, reserved: 0n, bookedHot: 300n }, policy)).toBe(70n);
  });

  it('asks for a refill below the floor, enough to pay what waits and be back at the float', () => {
    expect(refillToAsk({ held: 50n, reserved: 0n }, policy)).toBe(0n);
    expect(refillToAsk({ held: 20n, reserved: 0n }, policy)).toBe(0n); // at the floor: none yet
    expect(refillToAsk({ held: 19n, reserved: 0n }, policy)).toBe(31n);
    expect(refillToAsk({ held: 50n, reserved: 120n }, policy)).toBe(120n);
  });
});
