// The commitment's arithmetic (docs/api.md#fee-commitment): days covered by a
// UTC day's part, prorating half up, the projection, EURC at the operator's
// rate, debits, and the operator's status changes.
import { describe, expect, it } from 'vitest';
import {
  assess,
  daysCovered,
  debited,
  fromUsd,
  monthOf,
  parseFxRate,
  parseMonth,
  projectedFees,
  proratedFloor,
  toUsd,
  transition,
  type Commitment,
} from '../../../src/domain/commitments/commitment.js';

const at = (iso: string) => new Date(iso);
const usd = (whole: number) => BigInt(whole) * 1_000_000n;
const commitment = (fields: Partial<Commitment> = {}): Commitment => ({
  id: 'c1',
  workspaceId: 'w1',
  monthlyFloor: usd(310),
  settlementAsset: 'USDT_ETH',
  startsAt: at('2026-01-01T00:00:00Z'),
  endsAt: null,
  status: 'ACTIVE',
  autoDebit: false,
  contractReference: '',
  pauses: [],
  createdAt: at('2025-12-01T00:00:00Z'),
  updatedAt: at('2025-12-01T00:00:00Z'),
  ...fields,
});

describe('commitment arithmetic', () => {
  it('counts a UTC day as covered when the commitment is in force for any part of it', () => {
    const jan = parseMonth('2026-01');
    expect(daysCovered(commitment(), jan)).toBe(31);
    expect(daysCovered(commitment({ startsAt: at('2026-01-10T15:00:00Z') }), jan)).toBe(22); // the 10th counts
    expect(daysCovered(commitment({ endsAt: at('2026-01-21T00:00:00Z') }), jan)).toBe(20); // ends at midnight before the 21st
    expect(daysCovered(commitment({ endsAt: at('2026-01-21T00:00:01Z') }), jan)).toBe(21);
    expect(daysCovered(commitment({ startsAt: at('2026-02-01T00:00:00Z') }), jan)).toBe(0);
    // Paused from the 10th (midnight) to the 20th at noon: the 10th to the 19th are not covered, the 20th is.
    const paused = commitment({ pauses: [{ from: at('2026-04-10T00:00:00Z'), until: at('2026-04-20T12:00:00Z') }] });
    expect(daysCovered(paused, parseMonth('2026-04'))).toBe(20);
    expect(daysCovered(commitment({ pauses: [{ from: at('2026-04-10T00:00:00Z'), until: null }] }), parseMonth('2026-04'))).toBe(9);
  });

  it('prorates half up to 6 places, and projects straight-line', () => {
    expect(proratedFloor(usd(310), 22, 31)).toBe(usd(220));
    expect(proratedFloor(usd(310), 19, 28)).toBe(210_357_143n); // 210.3571428…
    expect(proratedFloor(1n, 1, 2)).toBe(1n); // 0.5 units rounds up
    expect(projectedFees(usd(50), parseMonth('2026-03'), at('2026-03-16T12:00:00Z'))).toBe(96_875_000n); // 50 × 31 / 16
    expect(projectedFees(usd(50), parseMonth('2026-03'), at('2026-03-01T00:00:00Z'))).toBe(usd(1550)); // the first day counts
  });

  it('converts EURC at the rate, and refuses without one', () => {
    const rate = parseFxRate('1.1');
    expect(toUsd('EURC_ETH', usd(100), rate)).toBe(usd(110));
    expect(fromUsd('EURC_ETH', usd(110), rate)).toBe(usd(100));
    expect(toUsd('USDT_TRON', usd(7), null)).toBe(usd(7));
    expect(() => toUsd('EURC_ETH', 1n, null)).toThrow(/EURC_USD/);
    for (const bad of ['0', '-1', '1.1234567', 'abc', '', '0.1', '3', '999999.999999']) expect(() => parseFxRate(bad)).toThrow(/from 0.5 to 2/);
    expect(() => parseMonth('0026-10')).toThrow(/YYYY-MM/); // not 1926
    expect(() => parseMonth('2026-13')).toThrow(/YYYY-MM/);
    expect(monthOf(at('2026-02-28T23:59:59Z')).end.toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });

  it('assesses a month: NOT_DUE when the floor is met, else OPEN for the shortfall; debits settle it', () => {
    const month = parseMonth('2026-01');
    const met = assess({ id: 'a', commitment: commitment(), month, billedFees: usd(400), eurcUsdPpm: null, at: at('2026-02-01T01:00:00Z') });
    expect(met).toMatchObject({ status: 'NOT_DUE', delta: 0n, outstanding: 0n, proratedFloor: usd(310), daysCovered: 31, recoveryMode: 'MANUAL' });
    const short = assess({ id: 'a', commitment: commitment({ autoDebit: true }), month, billedFees: usd(10), eurcUsdPpm: null, at: at('2026-02-01T01:00:00Z') });
    expect(short).toMatchObject({ status: 'OPEN', delta: usd(300), outstanding: usd(300), recoveryMode: 'AUTO_DEBIT' });
    const part = debited(short, usd(100), at('2026-02-01T01:00:00Z'));
    expect(part).toMatchObject({ status: 'OPEN', debited: usd(100), outstanding: usd(200), settledAt: null });
    expect(debited(part, usd(500), at('2026-03-01T00:00:00Z'))).toMatchObject({ status: 'SETTLED', debited: usd(300), outstanding: 0n, settledAt: at('2026-03-01T00:00:00Z') });
  });

  it('suspends only an ACTIVE commitment, resumes only a SUSPENDED one, ends either once', () => {
    const now = at('2026-05-10T00:00:00Z');
    const suspended = transition(commitment(), 'suspend', now);
    expect(suspended).toMatchObject({ status: 'SUSPENDED', pauses: [{ from: now, until: null }] });
    expect(() => transition(suspended, 'suspend', now)).toThrow(/SUSPENDED/);
    const resumed = transition(suspended, 'resume', at('2026-05-12T00:00:00Z'));
    expect(resumed).toMatchObject({ status: 'ACTIVE', pauses: [{ from: now, until: at('2026-05-12T00:00:00Z') }] });
    expect(() => transition(resumed, 'resume', now)).toThrow(/ACTIVE/);
    const ended = transition(suspended, 'end', at('2026-05-20T00:00:00Z'));
    expect(ended).toMatchObject({ status: 'ENDED', endsAt: at('2026-05-20T00:00:00Z'), pauses: [{ until: at('2026-05-20T00:00:00Z') }] });
    expect(() => transition(ended, 'end', now)).toThrow(/ENDED/);
    // Past its end date it is ENDED, whatever was recorded.
    expect(() => transition(commitment({ endsAt: at('2026-05-01T00:00:00Z') }), 'suspend', now)).toThrow(/ENDED/);
  });
});
