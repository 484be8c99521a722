// The dashboard's sign-in lockout (issue 32, ADR 0033). Failures are counted
// per (email, source address) and per source address, never per member alone:
// an attacker elsewhere slows and then stops only themselves, and the owner
// signs in from their own address as usual (the API's throttle of failed
// signatures works the same way). Pure: the caller counts recent failures.

/** Failures are counted over this window. */
export const FAILURE_WINDOW_MINUTES = 15;
/** Failures of one email from one address before that pair is refused for the window. */
export const PAIR_LIMIT = 5;
/** Failures from one address, whatever the emails, before the address is refused for the window. */
export const SOURCE_LIMIT = 20;

export interface RecentFailures {
  /** Failures of this email from this address within the window, and the oldest one's time. */
  pair: number;
  pairOldest: Date | null;
  /** Failures from this address within the window, and the oldest one's time. */
  source: number;
  sourceOldest: Date | null;
}

/** When the address may try again (null: it may now). */
export function lockedUntil(f: RecentFailures): Date | null {
  const until = (oldest: Date | null) => (oldest ? new Date(oldest.getTime() + FAILURE_WINDOW_MINUTES * 60_000) : null);
  const ends = [f.pair >= PAIR_LIMIT ? until(f.pairOldest) : null, f.source >= SOURCE_LIMIT ? until(f.sourceOldest) : null].filter(
    (d): d is Date => d !== null,
  );
  return ends.length === 0 ? null : new Date(Math.max(...ends.map((d) => d.getTime())));
}
