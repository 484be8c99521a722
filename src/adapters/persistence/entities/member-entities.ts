// Tables of the owner's dashboard (issue 32, ADR 0033): `workspace_members`,
// the people of a workspace with their role (one per email), and
// `member_invitations`, the one-time links that make them members (the
// token kept only as its SHA-256).
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
