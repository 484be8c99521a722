// The monthly fee commitment (docs/api.md#fee-commitment, ADR 0030): a
// workspace agrees a floor of fees a month, in USD; each closed calendar
// month its billed fees on mainnet stablecoins are compared with the floor,
// prorated by the days the commitment covered, and a shortfall becomes a
// catch-up adjustment, debited from available or owed. Pure: amounts are USD
// in 6-place units (bigint), times are passed in.
import { DomainError } from '../errors.js';
import { formatPlaces } from '../money/amount.js';
import type { Asset } from '../money/networks.js';

export const COMMITMENT_STATUSES = ['ACTIVE', 'SUSPENDED', 'ENDED'] as const;
export type CommitmentStatus = (typeof COMMITMENT_STATUSES)[number];
export const ADJUSTMENT_STATUSES = ['NOT_DUE', 'OPEN', 'SETTLED'] as const;
export type AdjustmentStatus = (typeof ADJUSTMENT_STATUSES)[number];
export const RECOVERY_MODES = ['AUTO_DEBIT', 'MANUAL'] as const;
export type RecoveryMode = (typeof RECOVERY_MODES)[number];
/** The stablecoins a shortfall may be debited in. */
export const SETTLEMENT_ASSETS = ['USDT_TRON', 'USDT_BSC', 'USDT_ETH', 'USDC_ETH', 'EURC_ETH'] as const satisfies readonly Asset[];
export type SettlementAsset = (typeof SETTLEMENT_ASSETS)[number];

/** USD amounts have 6 places. */
export const USD_PLACES = 6;
export const formatUsd = (units: bigint): string => formatPlaces(units, USD_PLACES);

const DAY_MS = 86_400_000;

/** A time the commitment was paused (suspended), until it was resumed (null: still paused). */
export interface Pause {
  from: Date;
  until: Date | null;
}

export interface Commitment {
  id: string;
  workspaceId: string;
  /** USD, 6-place units. */
  monthlyFloor: bigint;
  settlementAsset: SettlementAsset;
  startsAt: Date;
  /** Exclusive. */
  endsAt: Date | null;
  /** As recorded; see effectiveStatus for a commitment whose end has passed. */
  status: CommitmentStatus;
  autoDebit: boolean;
  contractReference: string;
  pauses: Pause[];
  createdAt: Date;
  updatedAt: Date;
}

export interface Adjustment {
  id: string;
  commitmentId: string;
  workspaceId: string;
  periodStart: Date;
  /** Exclusive: the first instant of the next month. */
  periodEnd: Date;
  daysCovered: number;
  proratedFloor: bigint;
  billedFees: bigint;
  delta: bigint;
  recoveryMode: RecoveryMode;
  debited: bigint;
  outstanding: bigint;
  status: AdjustmentStatus;
  settledAt: Date | null;
  /** The EURC/USD rate the month's EURC fees (and an EURC debit) were converted at, ppm; null when none was needed. */
  eurcUsdPpm: bigint | null;
  createdAt: Date;
}

/** A calendar month in UTC: [start, end). */
export interface Month {
  start: Date;
  end: Date;
}

export function monthOf(at: Date): Month {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  return { start, end: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)) };
}

/** 'YYYY-MM' → the month; VALIDATION_ERROR otherwise. */
export function parseMonth(text: string, field = 'month'): Month {
  const m = /^(2\d{3})-(0[1-9]|1[0-2])$/.exec(text);
  if (!m) throw new DomainError('VALIDATION_ERROR', `${field} must be a month as YYYY-MM, e.g. 2026-10`, [{ path: field, message: 'must be YYYY-MM' }]);
  return monthOf(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)));
}

export const formatMonth = (m: Month): string => m.start.toISOString().slice(0, 7);
export const previousMonth = (m: Month): Month => monthOf(new Date(m.start.getTime() - 1));
export const daysInMonth = (m: Month): number => Math.round((m.end.getTime() - m.start.getTime()) / DAY_MS);

/** A commitment whose end has passed is ENDED, whatever was recorded. */
export const effectiveStatus = (c: Commitment, now: Date): CommitmentStatus => (c.status === 'ENDED' || (c.endsAt !== null && c.endsAt <= now) ? 'ENDED' : c.status);

/** The times the commitment is in force: from its start to its end, less its pauses. */
function inForce(c: Commitment): [number, number][] {
  let spans: [number, number][] = [[c.startsAt.getTime(), c.endsAt?.getTime() ?? Number.POSITIVE_INFINITY]];
  for (const p of c.pauses) {
    const [a, b] = [p.from.getTime(), p.until?.getTime() ?? Number.POSITIVE_INFINITY];
    spans = spans.flatMap(([s, e]): [number, number][] => {
      if (b <= s || a >= e) return [[s, e]];
      return [
        [s, Math.min(a, e)],
        [Math.max(b, s), e],
      ].filter(([x, y]) => x! < y!) as [number, number][];
    });
  }
  return spans;
}

/**
 * The days of `month` the commitment covers: a UTC day counts when the
 * commitment is in force (started, not ended, not suspended) for any part of
 * it. A commitment starting at 15:00 on the 10th covers the 10th; one ending
 * at midnight before the 21st covers the 20th but not the 21st.
 */
export function daysCovered(c: Commitment, month: Month): number {
  const spans = inForce(c);
  let days = 0;
  for (let d = month.start.getTime(); d < month.end.getTime(); d += DAY_MS) {
    if (spans.some(([s, e]) => Math.max(s, d) < Math.min(e, d + DAY_MS))) days++;
  }
  return days;
}

/** floor × days covered / days in month, 6 places, rounded half up. */
export function proratedFloor(floor: bigint, covered: number, inMonth: number): bigint {
  const num = floor * BigInt(covered);
  const den = BigInt(inMonth);
  return (num * 2n + den) / (den * 2n);
}

/** billed × days in month / days elapsed (the current day counts), 6 places, half up: indicative. */
export function projectedFees(billed: bigint, month: Month, now: Date): bigint {
  const elapsed = BigInt(Math.min(daysInMonth(month), Math.floor((now.getTime() - month.start.getTime()) / DAY_MS) + 1));
  const num = billed * BigInt(daysInMonth(month));
  return (num * 2n + elapsed) / (elapsed * 2n);
}

/** The EURC/USD rates accepted: a mistyped rate would bill (and debit) by its factor. */
export const FX_RATE_BOUNDS_PPM = { min: 500_000n, max: 2_000_000n } as const;

/** A rate in parts per million, e.g. EURC/USD '1.08' → 1080000n: at most 6 places, from 0.5 to 2. */
export function parseFxRate(text: string, field = 'rate'): bigint {
  const m = /^(\d{1,6})(?:\.(\d{1,6}))?$/.exec(text);
  const ppm = m ? BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0')) : 0n;
  if (ppm < FX_RATE_BOUNDS_PPM.min || ppm > FX_RATE_BOUNDS_PPM.max) {
    throw new DomainError('VALIDATION_ERROR', `${field} must be a decimal from 0.5 to 2 with at most 6 places, e.g. 1.08 (USD per EURC)`, [{ path: field, message: 'must be from 0.5 to 2' }]);
  }
  return ppm;
}
export const formatFxRate = (ppm: bigint): string => formatPlaces(ppm, 6);

/** USD (6 places) of an amount of a USD-pegged stablecoin (1:1) or of EURC at `eurcUsdPpm`, rounded half up. */
export function toUsd(asset: SettlementAsset, units: bigint, eurcUsdPpm: bigint | null): bigint {
  if (asset !== 'EURC_ETH') return units;
  if (eurcUsdPpm === null) throw new DomainError('UNPROCESSABLE', 'No EURC_USD rate is set: the operator sets one with `ops fx set EURC_USD RATE`');
  return (units * eurcUsdPpm * 2n + 1_000_000n) / 2_000_000n;
}

/** The settlement asset's units worth `usd`, rounded half up (the inverse of toUsd). */
export function fromUsd(asset: SettlementAsset, usd: bigint, eurcUsdPpm: bigint | null): bigint {
  if (asset !== 'EURC_ETH') return usd;
  if (eurcUsdPpm === null) throw new DomainError('UNPROCESSABLE', 'No EURC_USD rate is set: the operator sets one with `ops fx set EURC_USD RATE`');
  return (usd * 1_000_000n * 2n + eurcUsdPpm) / (eurcUsdPpm * 2n);
}

/**
 * The USD worth of the fees charged per stablecoin (EURC at the rate), never below zero. Without a
 * rate, EURC fees are refused (`strict`, for a settlement) or left out (for the indicative current month).
 */
export function billedUsd(fees: ReadonlyMap<Asset, bigint>, eurcUsdPpm: bigint | null, opts: { strict: boolean }): bigint {
  let billed = 0n;
  for (const [asset, units] of fees) {
    if (asset === 'EURC_ETH' && eurcUsdPpm === null && !opts.strict) continue;
    billed += toUsd(asset as SettlementAsset, units, eurcUsdPpm);
  }
  return billed < 0n ? 0n : billed;
}

/** Whether converting these fees, or debiting this asset, needs the EURC/USD rate. */
export const needsEurcRate = (fees: ReadonlyMap<Asset, bigint>, asset?: SettlementAsset): boolean => asset === 'EURC_ETH' || (fees.get('EURC_ETH') ?? 0n) !== 0n;

/** The month's adjustment before any debit: NOT_DUE when the floor was met, else OPEN for the shortfall. */
export function assess(input: {
  id: string;
  commitment: Commitment;
  month: Month;
  billedFees: bigint;
  eurcUsdPpm: bigint | null;
  at: Date;
}): Adjustment {
  const { commitment: c, month } = input;
  const covered = daysCovered(c, month);
  const floor = proratedFloor(c.monthlyFloor, covered, daysInMonth(month));
  const billed = input.billedFees < 0n ? 0n : input.billedFees;
  const delta = floor > billed ? floor - billed : 0n;
  return {
    id: input.id,
    commitmentId: c.id,
    workspaceId: c.workspaceId,
    periodStart: month.start,
    periodEnd: month.end,
    daysCovered: covered,
    proratedFloor: floor,
    billedFees: billed,
    delta,
    recoveryMode: c.autoDebit ? 'AUTO_DEBIT' : 'MANUAL',
    debited: 0n,
    outstanding: delta,
    status: delta === 0n ? 'NOT_DUE' : 'OPEN',
    settledAt: null,
    eurcUsdPpm: input.eurcUsdPpm,
    createdAt: input.at,
  };
}

/** The adjustment after `usd` more was debited: SETTLED (with settled_at) once nothing is outstanding. */
export function debited(a: Adjustment, usd: bigint, at: Date): Adjustment {
  if (usd <= 0n) return a;
  const paid = usd > a.outstanding ? a.outstanding : usd;
  const outstanding = a.outstanding - paid;
  return { ...a, debited: a.debited + paid, outstanding, status: outstanding === 0n ? 'SETTLED' : 'OPEN', settledAt: outstanding === 0n ? at : a.settledAt };
}

/** The operator records that the workspace paid what is outstanding outside the platform: SETTLED, nothing debited. */
export function paidOutside(a: Adjustment, at: Date): Adjustment {
  if (a.status !== 'OPEN') throw new DomainError('UNPROCESSABLE', `The adjustment is ${a.status}: nothing is owed on it`);
  return { ...a, outstanding: 0n, status: 'SETTLED', settledAt: at };
}

/** The operator's changes of a commitment's status: suspend (ACTIVE), resume (SUSPENDED), end (either). */
export function transition(c: Commitment, action: 'suspend' | 'resume' | 'end', now: Date): Commitment {
  const status = effectiveStatus(c, now);
  const refuse = () => new DomainError('UNPROCESSABLE', `The commitment is ${status}: it cannot be ${{ suspend: 'suspended', resume: 'resumed', end: 'ended' }[action]}`);
  const closePauses = (pauses: Pause[]) => pauses.map((p) => (p.until === null ? { ...p, until: now } : p));
  switch (action) {
    case 'suspend':
      if (status !== 'ACTIVE') throw refuse();
      return { ...c, status: 'SUSPENDED', pauses: [...c.pauses, { from: now, until: null }], updatedAt: now };
    case 'resume':
      if (status !== 'SUSPENDED') throw refuse();
      return { ...c, status: 'ACTIVE', pauses: closePauses(c.pauses), updatedAt: now };
    case 'end': {
      if (status === 'ENDED') throw refuse();
      // Ends now; one that has not started yet ends at its start (it never covers a day).
      const endsAt = c.startsAt > now ? c.startsAt : now;
      return { ...c, status: 'ENDED', endsAt, pauses: closePauses(c.pauses), updatedAt: now };
    }
  }
}
