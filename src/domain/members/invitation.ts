// A one-time invitation to join a workspace's dashboard (issue 32, ADR 0033):
// the link carries a random token the service keeps only as its hash; it is
// valid 72 hours and used once, and a new invitation of the same email
// replaces one still open. Pure: callers pass the time and the token's hash.
import type { MemberRole } from './member.js';

export const INVITATION_HOURS = 72;

export interface Invitation {
  id: string;
  workspaceId: string;
  email: string;
  role: MemberRole;
  /** SHA-256 of the link's token, hex. */
  tokenHash: string;
  /** Who invited: a member's id, or null for the operator (ops owner invite). */
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  /** Replaced by a newer invitation of the same email. */
  revokedAt: Date | null;
}

export function newInvitation(fields: Omit<Invitation, 'expiresAt' | 'acceptedAt' | 'revokedAt'>): Invitation {
  return { ...fields, expiresAt: new Date(fields.createdAt.getTime() + INVITATION_HOURS * 3_600_000), acceptedAt: null, revokedAt: null };
}

/** Why the invitation cannot be used at `now`, or null when it can. */
export function unusable(invitation: Invitation, now: Date): 'accepted' | 'revoked' | 'expired' | null {
  if (invitation.acceptedAt) return 'accepted';
  if (invitation.revokedAt) return 'revoked';
  if (now.getTime() >= invitation.expiresAt.getTime()) return 'expired';
  return null;
}
