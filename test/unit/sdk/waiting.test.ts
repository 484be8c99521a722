// Waiting for a status (client.waitFor): when a wait ends, what it throws,
// and that its polls are a second apart so that no two are the same signed
// request (the API refuses such a repeat as REPLAY_DETECTED). The loop runs
// on a fake clock; the client's waits run over a real socket.
import { describe, expect, it } from 'vitest';
import {
  UnexpectedStatusError,
  WaitTimeoutError,
  WalletApiError,
  waitForStatus,
  WITHDRAWAL_LIFECYCLE,
  type PollClock,
  type Withdrawal,
  type WithdrawalStatus,
} from '../../../src/sdk/index.js';
import type { Received, Reply } from './fake-wallet-api.js';
import { failureOf, withApi } from './sdk-harness.js';

const WITHDRAWAL: Withdrawal = {
  id: '7c1e0f4a-2b3c-4d5e-8f90-a1b2c3d4e5f6',
  chain: 'ETH_TESTNET',
  asset: 'USDT_ETH',
  amount: '20.000000',
  status: 'PENDING',
  txid: null,
  destination_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  idempotency_key: 'k-1',
  requested_at: '2026-01-01T00:00:00.000Z',
  confirmed_at: null,
  fee_record: null,
};

/** A clock that only moves when the wait sleeps, recording each sleep. */
function fakeClock(): PollClock & { sleeps: number[] } {
  let now = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

/** Reads that return the statuses in turn, then the last one for ever. */
const reads = (statuses: WithdrawalStatus[]) => {
  let i = 0;
  return async () => ({ ...WITHDRAWAL, status: statuses[Math.min(i++, statuses.length - 1)]! });
};

const wait = (statuses: WithdrawalStatus[], wanted: WithdrawalStatus) => ({
  read: reads(statuses),
  lifecycle: WITHDRAWAL_LIFECYCLE,
  wanted,
  what: `withdrawal ${WITHDRAWAL.id}`,
});

describe('waitForStatus', () => {
  it('returns the first read with the wanted status, a second or more between reads', async () => {
    const clock = fakeClock();
    const got = await waitForStatus(wait(['PENDING', 'PROCESSING', 'CONFIRMING', 'CONFIRMED'], 'CONFIRMED'), { intervalMs: 10 }, clock);
    expect(got.status).toBe('CONFIRMED');
    expect(clock.sleeps).toEqual([1000, 1000, 1000]);
  });

  it('counts a later step on the way to success as reached', async () => {
    const got = await waitForStatus(wait(['PENDING', 'CONFIRMED'], 'PROCESSING'), {}, fakeClock());
    expect(got.status).toBe('CONFIRMED');
  });

  it('waits through a review detour for PENDING', async () => {
    const clock = fakeClock();
    const got = await waitForStatus(wait(['PENDING_APPROVAL', 'UNDER_REVIEW', 'PENDING'], 'PENDING'), { intervalMs: 2500 }, clock);
    expect(got.status).toBe('PENDING');
    expect(clock.sleeps).toEqual([2500, 2500]);
  });

  it('throws UnexpectedStatusError at a final status other than the wanted one, with the resource', async () => {
    const err = await failureOf(waitForStatus(wait(['PENDING', 'PROCESSING', 'FAILED'], 'CONFIRMED'), {}, fakeClock()));
    expect(err).toBeInstanceOf(UnexpectedStatusError);
    expect(err).toBeInstanceOf(WalletApiError);
    expect(err).toMatchObject({ code: 'UNEXPECTED_STATUS', status: null, wanted: 'CONFIRMED', reached: 'FAILED', resource: { id: WITHDRAWAL.id, status: 'FAILED' } });
    expect(err.message).toBe(`withdrawal ${WITHDRAWAL.id} ended FAILED, not CONFIRMED`);
  });

  it('throws WaitTimeoutError once the next poll would start after the timeout, with the last read', async () => {
    const clock = fakeClock();
    const err = await failureOf(waitForStatus(wait(['PENDING'], 'CONFIRMED'), { timeoutMs: 3500 }, clock));
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(err).toMatchObject({ code: 'WAIT_TIMEOUT', wanted: 'CONFIRMED', resource: { status: 'PENDING' } });
    expect(clock.sleeps).toEqual([1000, 1000, 1000]);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const clock = fakeClock();
    const read = async () => {
      controller.abort(new Error('shutting down'));
      return WITHDRAWAL;
    };
    await expect(
      waitForStatus({ read, lifecycle: WITHDRAWAL_LIFECYCLE, wanted: 'CONFIRMED', what: 'w' }, { signal: controller.signal }, clock),
    ).rejects.toThrow('shutting down');
  });
});

describe('client.waitFor', () => {
  const withdrawalReads = (statuses: WithdrawalStatus[]) => (req: Received, index: number): Reply =>
    req.target === `/v2/withdrawals/${WITHDRAWAL.id}`
      ? { status: 200, body: { ...WITHDRAWAL, status: statuses[Math.min(index, statuses.length - 1)] } }
      : { status: 404, body: { error: 'no', code: 'NOT_FOUND' } };

  it('polls GET /v2/withdrawals/{id} until CONFIRMED, never the same signed request twice in one second', async () => {
    await withApi(withdrawalReads(['PENDING', 'PROCESSING', 'CONFIRMED']), async (client, api) => {
      const created = { ...WITHDRAWAL, fee: '5.000000', net_amount: '15.000000' };
      const confirmed = await client.waitFor(created, 'CONFIRMED', { timeoutMs: 30_000 });
      expect(confirmed.status).toBe('CONFIRMED');
      expect(confirmed.lastResponse.attempts).toBe(1);
      expect(api.received).toHaveLength(3);
      const seconds = api.received.map((r) => Number(r.headers['x-service-timestamp']));
      expect(seconds[1]).toBeGreaterThan(seconds[0]!);
      expect(seconds[2]).toBeGreaterThan(seconds[1]!);
      expect(api.received.every((r) => r.signatureValid)).toBe(true);
    });
  });

  it('tells a deposit and a drip apart by their fields and reads each at its own path', async () => {
    const deposit = { id: 'd-1', status: 'SWEPT', detected_at: '2026-01-01T00:00:00.000Z' };
    const drip = { drip_id: 'r-1', status: 'FAILED', chain: 'ETH_TESTNET', address: '0x', items: [] };
    await withApi(
      (req) => ({ status: 200, body: req.target.startsWith('/v2/sandbox/faucet/') ? drip : deposit }),
      async (client, api) => {
        expect((await client.waitFor({ id: 'd-1', detected_at: deposit.detected_at }, 'CONFIRMED')).status).toBe('SWEPT');
        const err = await failureOf(client.waitFor({ drip_id: 'r-1' }, 'COMPLETED'));
        expect(err).toBeInstanceOf(UnexpectedStatusError);
        expect(api.received.map((r) => r.target)).toEqual(['/v2/transactions/deposits/d-1', '/v2/sandbox/faucet/r-1']);
      },
    );
  });
});
