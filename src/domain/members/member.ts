// The people of a workspace who use its dashboard (issue 32, ADR 0033): a
// member has one role. OWNER does everything, APPROVER approves or rejects
// withdrawals and reads, VIEWER reads. Pure.

export const MEMBER_ROLES = ['OWNER', 'APPROVER', 'VIEWER'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** What a member may do in the dashboard. */
export type MemberAction = 'read' | 'approve' | 'manage';

const ALLOWED: Record<MemberRole, readonly MemberAction[]> = {
  OWNER: ['read', 'approve', 'manage'],
  APPROVER: ['read', 'approve'],
  VIEWER: ['read'],
};

export const may = (role: MemberRole, action: MemberAction): boolean => ALLOWED[role].includes(action);

export interface Member {
  id: string;
  workspaceId: string;
  /** Lower case: one member per email and workspace. */
  email: string;
  role: MemberRole;
  /** `scrypt$N$r$p$salt$hash` (ADR 0033); null until the invitation is accepted. */
  passwordHash: string | null;
  /** The TOTP secret, encrypted with the service's secret key; null until enrolled. */
  totpSecret: string | null;
  /** The time step of the last code accepted: a code is accepted once. */
  totpLastStep: number | null;
  /** SHA-256 (hex) of each recovery code not used yet. */
  recoveryCodes: string[];
  createdAt: Date;
}

/** Passwords are at least this long (and at most 256 characters). */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;
/** Recovery codes handed out at enrolment, each usable once instead of a TOTP code. */
export const RECOVERY_CODES = 10;

/** An email as members are keyed by it: trimmed and in lower case. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

/** A plausible email (one @, a dot in the domain, no spaces), at most 320 characters. */
export const isEmail = (email: string): boolean => email.length <= 320 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
