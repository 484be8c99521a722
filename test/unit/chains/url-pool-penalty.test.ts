// A URL in a rate-limit penalty is called once the penalty has ended, even
// when the timer that waits for it fires early: Node runs timers on the event
// loop's cached clock, which may be behind Date.now() on a busy process (a CI
// run once lost its last retry to a wait that ended a millisecond early).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UrlPool } from '../../../src/adapters/chains/url-pool.js';
import { ChainUnavailableError } from '../../../src/domain/chains/chain-port.js';

const URL_A = 'http://node-a.invalid';
const noneServe = () => new ChainUnavailableError('BSC_TESTNET', 'method_not_served', 'none');

afterEach(() => {
  vi.useRealTimers();
});

describe('UrlPool penalty wait', () => {
  it('calls a penalised URL once its penalty ends, though the timer fired before Date.now() reached the end', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const pool = new UrlPool({ network: 'BSC_TESTNET', urls: [URL_A], retryCount: 0, retryDelayMs: 10 });
    pool.penalize(URL_A, 1_000, 'test');
    const penaltyEnds = Date.now() + 1_000;
    const calledAt: number[] = [];
    const outcome = pool
      .run('eth_blockNumber', async () => (calledAt.push(Date.now()), 7), noneServe)
      .then((value) => ({ value }), (error: unknown) => ({ error }));
    // The wall clock set 5 ms back: every timer now fires 5 ms before Date.now() reaches the time it waited for.
    vi.setSystemTime(Date.now() - 5);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(await outcome).toEqual({ value: 7 });
    expect(calledAt).toHaveLength(1);
    expect(calledAt[0]).toBeGreaterThanOrEqual(penaltyEnds); // the penalty was kept
  });

  it('fails at once, rate-limited, when the penalty is longer than a call may wait', async () => {
    const pool = new UrlPool({ network: 'BSC_TESTNET', urls: [URL_A], retryCount: 0, retryDelayMs: 10 });
    pool.penalize(URL_A, 60_000, 'test');
    let called = false;
    const err = await pool.run('eth_blockNumber', async () => (called = true), noneServe).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainUnavailableError);
    expect((err as ChainUnavailableError).kind).toBe('rate_limited');
    expect((err as Error).message).toMatch(/every URL is rate-limited for 60 s more/);
    expect(called).toBe(false);
  });
});
