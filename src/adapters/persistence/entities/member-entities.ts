// Tables of the owner's dashboard (issue 32, ADR 0033): `workspace_members`,
// the people of a workspace with their role (one per email), and
// `member_invitations`, the one-time links that make them members (the
// token kept only as its SHA-256); `member_sessions` (signed-in sessions, the
// cookie's token kept as its SHA-256), `sign_in_failures` (the lockout's
// counts) and `member_audit` (the append-only audit log).
import { EntitySchema } from '@mikro-orm/core';
import { workspaceReference } from './workspace-reference.js';

const time = { type: 'Date', columnType: 'timestamptz' } as const;
const ROLES = ['OWNER', 'APPROVER', 'VIEWER'];

export interface MemberRow {
  id: string;
  workspaceId: string;
  email: string;
  role: string;
  passwordHash: string | null;
  totpSecret: string | null;
  totpLastStep: string | null;
  recoveryCodes: string[];
  createdAt: Date;
}

export const MemberEntity = new EntitySchema<MemberRow>({
  name: 'WorkspaceMember',
  tableName: 'workspace_members',
  uniques: [{ name: 'workspace_members_email_unique', properties: ['workspaceId', 'email'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    email: { type: 'text' },
    role: { enum: true, items: ROLES },
    passwordHash: { type: 'text', nullable: true },
    totpSecret: { type: 'text', nullable: true },
    totpLastStep: { type: 'bigint', nullable: true },
    recoveryCodes: { type: 'json', default: "'[]'" },
    createdAt: time,
  },
});

export interface InvitationRow {
  id: string;
  workspaceId: string;
  email: string;
  role: string;
  tokenHash: string;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}

export const InvitationEntity = new EntitySchema<InvitationRow>({
  name: 'MemberInvitation',
  tableName: 'member_invitations',
  uniques: [{ name: 'member_invitations_token_unique', properties: ['tokenHash'] }],
  indexes: [{ name: 'member_invitations_email_idx', properties: ['workspaceId', 'email'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    email: { type: 'text' },
    role: { enum: true, items: ROLES },
    tokenHash: { type: 'text' },
    invitedBy: { type: 'uuid', nullable: true },
    createdAt: time,
    expiresAt: time,
    acceptedAt: { ...time, nullable: true },
    revokedAt: { ...time, nullable: true },
  },
});

export interface SessionRow {
  id: string;
  memberId: string;
  workspaceId: string;
  tokenHash: string;
  csrfToken: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
  source: string;
}

export const SessionEntity = new EntitySchema<SessionRow>({
  name: 'MemberSession',
  tableName: 'member_sessions',
  uniques: [{ name: 'member_sessions_token_unique', properties: ['tokenHash'] }],
  indexes: [{ name: 'member_sessions_member_idx', properties: ['memberId'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    memberId: { kind: 'm:1', entity: 'WorkspaceMember', mapToPk: true, fieldName: 'member_id', deleteRule: 'cascade' } as never,
    workspaceId: workspaceReference(),
    tokenHash: { type: 'text' },
    csrfToken: { type: 'text' },
    createdAt: time,
    lastSeenAt: time,
    expiresAt: time,
    endedAt: { ...time, nullable: true },
    source: { type: 'text' },
  },
});

export interface SignInFailureRow {
  id: string;
  email: string;
  source: string;
  at: Date;
}

export const SignInFailureEntity = new EntitySchema<SignInFailureRow>({
  name: 'SignInFailure',
  tableName: 'sign_in_failures',
  indexes: [
    { name: 'sign_in_failures_source_idx', properties: ['source', 'at'] },
    { name: 'sign_in_failures_pair_idx', properties: ['email', 'source', 'at'] },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    email: { type: 'text' },
    source: { type: 'text' },
    at: time,
  },
});

export interface AuditRow {
  id: string;
  workspaceId: string;
  memberId: string | null;
  actor: string;
  source: string;
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
  at: Date;
}

export const AuditEntity = new EntitySchema<AuditRow>({
  name: 'MemberAudit',
  tableName: 'member_audit',
  indexes: [{ name: 'member_audit_workspace_idx', properties: ['workspaceId', 'at'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    // No foreign key: the log outlives a removed member.
    memberId: { type: 'uuid', nullable: true },
    actor: { type: 'text' },
    source: { type: 'text' },
    action: { type: 'text' },
    target: { type: 'text', nullable: true },
    before: { type: 'json', nullable: true },
    after: { type: 'json', nullable: true },
    at: time,
  },
});

export interface WithdrawalApprovalRow {
  withdrawalId: string;
  memberId: string;
  approvedAt: Date;
}

/** One row per member who approved a withdrawal waiting for approval: a member counts once. */
export const WithdrawalApprovalEntity = new EntitySchema<WithdrawalApprovalRow>({
  name: 'WithdrawalApproval',
  tableName: 'withdrawal_approvals',
  properties: {
    withdrawalId: { kind: 'm:1', entity: 'Withdrawal', mapToPk: true, primary: true, fieldName: 'withdrawal_id', deleteRule: 'cascade' } as never,
    memberId: { kind: 'm:1', entity: 'WorkspaceMember', mapToPk: true, primary: true, fieldName: 'member_id', deleteRule: 'cascade' } as never,
    approvedAt: time,
  },
});
