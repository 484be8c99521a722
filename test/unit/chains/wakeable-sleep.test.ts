// The loops' pause: woken at once on shutdown, and holding nothing once a
// pause is over (a chain-worker pauses hundreds of thousands of times a day).
import { describe, expect, it } from 'vitest';
import { WakeableSleep } from '../../../src/adapters/chains/wakeable-sleep.js';

describe('WakeableSleep', () => {
  it('keeps nothing of pauses that ended, however many were taken', async () => {
    const s = new WakeableSleep();
    for (let i = 0; i < 1_000; i++) await s.sleep(0); // each is a timer of at least 1 ms
    expect(s.size).toBe(0);
  });

  it('wakes every running pause at once', async () => {
    const s = new WakeableSleep();
    const started = Date.now();
    const pauses = [s.sleep(60_000), s.sleep(60_000)];
    expect(s.size).toBe(2);
    s.wakeAll();
    await Promise.all(pauses);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(s.size).toBe(0);
  });
});
