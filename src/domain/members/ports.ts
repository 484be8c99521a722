// What the dashboard's members need from storage (issue 32, ADR 0033).
import type { AuditEntry } from './audit.js';
import type { Invitation } from './invitation.js';
import type { Member } from './member.js';
import type { RecentFailures } from './lockout.js';
import type { Session, SignedInMember } from './session.js';

export interface MemberRepo {
  /** The workspace's member with this email (lower case), if any. */
  byEmail(workspaceId: string, email: string): Promise<Member | null>;
  /** Every workspace's member with this email who has accepted an invitation (at most `limit`). */
  signInCandidates(email: string, limit: number): Promise<Member[]>;
  /** The member, locked until commit when `lock`. */
  byId(id: string, lock?: boolean): Promise<Member | null>;
  /** Serialises changes of a workspace's membership until the transaction ends (the last owner stays). */
  lockMembership(workspaceId: string): Promise<void>;
  /** The workspace's members, oldest first. */
  list(workspaceId: string): Promise<Member[]>;
  /** The workspace's open invitations, newest first. */
  openInvitations(workspaceId: string, now: Date): Promise<Invitation[]>;
  /** Inserts a member or replaces its fields (password, factor, recovery codes, role). */
  save(member: Member): Promise<void>;
  /** Removes a member (its sessions end with it). */
  remove(id: string): Promise<void>;
  /** Records an invitation; the open ones of the same email in the workspace are revoked (replaced) at its time. */
  invite(invitation: Invitation): Promise<void>;
  /** The invitation whose token hashes to this, locked until commit. */
  invitationByTokenHash(tokenHash: string): Promise<Invitation | null>;
  /** Marks an invitation used. */
  acceptInvitation(id: string, at: Date): Promise<void>;
  /** Revokes the workspace's open invitation (false when there is none), or every open one a member sent. */
  revokeInvitation(workspaceId: string, id: string, at: Date): Promise<boolean>;
  revokeInvitationsBy(memberId: string, at: Date): Promise<void>;
  /** Records a member's approval of a withdrawal; false when that member had approved it already (a member counts once). */
  approve(withdrawalId: string, memberId: string, at: Date): Promise<boolean>;
  /** Who approved a withdrawal so far, in order. */
  approvers(withdrawalId: string): Promise<{ memberId: string; email: string; at: Date }[]>;
}

export interface SessionRepo {
  create(session: Session): Promise<void>;
  /** The live-or-not session of this token hash with its member, if both exist. */
  byTokenHash(tokenHash: string): Promise<SignedInMember | null>;
  touch(id: string, at: Date): Promise<void>;
  end(id: string, at: Date): Promise<void>;
  /** Ends every open session of a member (removed, password changed). */
  endAllOf(memberId: string, at: Date): Promise<void>;
  /** Counts an attempt as failed; callers record it before they check, and forget it (clearFailures) when it succeeds, so parallel attempts cannot race the count. */
  recordFailure(email: string, source: string, at: Date): Promise<string>;
  /** Forgets one recorded attempt (one refused before it was checked: it must not prolong the lockout). */
  forgetFailure(id: string): Promise<void>;
  /** Failures recorded under `key` since a time, from any address (the wrong codes of one session). */
  countFailures(key: string, since: Date): Promise<number>;
  recentFailures(email: string, source: string, since: Date): Promise<RecentFailures>;
  /** Forgets the pair's failures after a good sign-in. */
  clearFailures(email: string, source: string): Promise<void>;
}

export interface AuditRepo {
  record(entry: AuditEntry): Promise<void>;
  /** Newest first, at most `limit`, older than `before` when given. */
  list(workspaceId: string, opts: { limit: number; before?: Date }): Promise<AuditEntry[]>;
}


/** Hashes and checks passwords (ADR 0033: scrypt with a per-member salt). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** True when `password` matches `stored`; false (never a throw) for a malformed `stored`. */
  verify(password: string, stored: string): Promise<boolean>;
  /** Spends the time of one verification: a sign-in with an unknown email takes as long as one with a known one. */
  waste(password: string): Promise<void>;
}

/** The TOTP second factor (RFC 6238). */
export interface Authenticator {
  /** A new base32 secret. */
  newSecret(): string;
  /** The otpauth:// URI an authenticator app enrols from (shown as a QR code). */
  enrolmentUri(secret: string, account: string): string;
  /** The time step the code matches at `now` (one step either side), or null; a step at or before `afterStep` never matches. */
  verify(secret: string, code: string, now: Date, afterStep: number | null): Promise<number | null>;
}
