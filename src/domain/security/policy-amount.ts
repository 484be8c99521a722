// The amounts of the withdrawal policy (per-transaction limit, daily limit,
// approval threshold): positive decimal strings in the withdrawn asset's
// units, at most 18 places, stored as NUMERIC(78,18). They have one canonical
// spelling, without leading zeros or trailing fractional zeros ("1000",
// "2500.5"), used for comparison, in events and in the CLI's output, whatever
// spelling the operator typed or the column returns ("1000.000000000000000000").
import { DomainError } from '../errors.js';

/** 60 integer digits and 18 places: what NUMERIC(78,18) holds. */
const DECIMAL = /^(\d{1,60})(?:\.(\d{1,18}))?$/;

/** The canonical spelling of a non-negative decimal string, or null when it is not one. */
export function canonicalDecimal(value: string): string | null {
  const m = DECIMAL.exec(value);
  if (!m) return null;
  const whole = m[1]!.replace(/^0+(?=\d)/, '');
  const places = (m[2] ?? '').replace(/0+$/, '');
  return places ? `${whole}.${places}` : whole;
}

/** True when `value` is a policy amount: a positive decimal with at most 18 places. */
export const isPolicyAmount = (value: string): boolean => {
  const canonical = canonicalDecimal(value);
  return canonical !== null && /[1-9]/.test(canonical);
};

/** The canonical spelling of a policy amount, or VALIDATION_ERROR naming `setting`. */
export function policyAmountOf(value: string, setting: string): string {
  if (!isPolicyAmount(value)) {
    throw new DomainError('VALIDATION_ERROR', `${setting} must be a positive decimal with at most 18 places (e.g. 1000 or 2500.5), got "${value}"`);
  }
  return canonicalDecimal(value)!;
}

/** A stored amount (or null) in its canonical spelling. */
export function storedAmount(value: string | null): string | null {
  if (value === null) return null;
  const canonical = canonicalDecimal(String(value));
  if (canonical === null) throw new Error(`stored policy amount "${String(value)}" is not a decimal`);
  return canonical;
}
