// The lockout's bookkeeping (issue 32, ADR 0033), shared by sign-in and the
// second factor asked again before a change: each attempt is counted as
// failed before it is checked, committed at once so parallel attempts see
// it, and forgotten by the caller when it succeeds.
import { DomainError } from '../../domain/errors.js';
import { FAILURE_WINDOW_MINUTES, lockedUntil } from '../../domain/members/lockout.js';
import type { UnitOfWork } from '../../domain/ports.js';

/**
 * Counts this attempt as failed (committed at once, so parallel attempts see
 * it), then refuses it with RATE_LIMITED when the failures before it lock the
 * address out. The caller forgets the failures of (email, source) when the
 * attempt succeeds.
 */
export async function countAttempt(uow: UnitOfWork, email: string, source: string, now: Date): Promise<void> {
  const id = await uow.run((tx) => tx.sessions.recordFailure(email, source, now));
  const since = new Date(now.getTime() - FAILURE_WINDOW_MINUTES * 60_000);
  const f = await uow.read((tx) => tx.sessions.recentFailures(email, source, since));
  // The failures before this attempt: its own row is among those counted.
  const until = lockedUntil({ ...f, pair: f.pair - 1, source: f.source - 1 });
  if (!until) return;
  // Refused unchecked: it is no failure, and must not keep the address locked past the window.
  await uow.run((tx) => tx.sessions.forgetFailure(id));
  const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  throw new DomainError('RATE_LIMITED', `Too many failed attempts from this address: try again in ${Math.ceil(seconds / 60)} minutes`, { retry_after_seconds: seconds });
}

