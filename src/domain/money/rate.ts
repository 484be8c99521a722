// Rates (fee percentages) as exact fractions in parts per million: 0.90 % is
// 9000 ppm. Multiplying an amount by a rate rounds UP to the asset's precision
// (never under-charge: docs/api.md#amounts).
import { DomainError } from '../errors.js';

export const PPM = 1_000_000n;

export type RatePpm = bigint;

/** ceil(units × ppm / 1e6) for non-negative units. */
export const applyRateCeil = (units: bigint, ppm: RatePpm): bigint => (units * ppm + PPM - 1n) / PPM;

/** '0.009' → 9000n. A fraction between 0 and 1 with at most 6 places. */
export function parseRate(input: string, field = 'rate'): RatePpm {
  const m = /^(0|1)(?:\.([0-9]{1,6}))?$/.exec(input);
  const ppm = m ? BigInt(m[1]!) * PPM + BigInt((m[2] ?? '').padEnd(6, '0')) : -1n;
  if (ppm < 0n || ppm >= PPM) {
    throw new DomainError('VALIDATION_ERROR', `${field} must be a fraction from 0 to below 1, e.g. 0.009 for 0.9 %`, [
      { path: field, message: 'must be a fraction such as 0.009' },
    ]);
  }
  return ppm;
}

/** 9000n → '0.009000' (a fraction, 6 places). */
export const formatRate = (ppm: RatePpm): string => {
  const digits = ppm.toString().padStart(7, '0');
  return `${digits.slice(0, -6)}.${digits.slice(-6)}`;
};

/** fee / gross as a fraction with 6 places, rounded half up; 0 when gross is 0. */
export const ratioAsRate = (fee: bigint, gross: bigint): string =>
  gross === 0n ? formatRate(0n) : formatRate((fee * PPM * 2n + gross) / (gross * 2n));
