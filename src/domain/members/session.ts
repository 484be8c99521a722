// A member's signed-in session in the dashboard (issue 32, ADR 0033): an
// opaque token in a cookie, kept by the service as its SHA-256; it ends at
// sign-out, after IDLE_MINUTES without a request and after ABSOLUTE_HOURS at
// most. Each carries its synchronizer CSRF token. Pure.
import type { MemberRole } from './member.js';

export const IDLE_MINUTES = 30;
export const ABSOLUTE_HOURS = 12;

export interface Session {
  id: string;
  memberId: string;
  workspaceId: string;
  /** SHA-256 of the cookie's token, hex. */
  tokenHash: string;
  /** The synchronizer token every change must carry. */
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  /** The hard end, ABSOLUTE_HOURS after sign-in. */
  expiresAt: Date;
  endedAt: Date | null;
  /** The address it was signed in from. */
  source: string;
}

/** A session with the member it belongs to, as a request sees it. */
export interface SignedInMember {
  session: Session;
  memberId: string;
  workspaceId: string;
  email: string;
  role: MemberRole;
}

export const sessionExpiry = (createdAt: Date): Date => new Date(createdAt.getTime() + ABSOLUTE_HOURS * 3_600_000);

/** Whether the session still lets its holder in at `now`. */
export function sessionLive(s: Session, now: Date): boolean {
  if (s.endedAt) return false;
  if (now.getTime() >= s.expiresAt.getTime()) return false;
  return now.getTime() - s.lastSeenAt.getTime() < IDLE_MINUTES * 60_000;
}
