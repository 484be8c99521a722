// MemberRepo in PostgreSQL (issue 32, ADR 0033): the members of a workspace
// (workspace_members), their one-time invitations (member_invitations) and
// their approvals of withdrawals (withdrawal_approvals).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Invitation } from '../../domain/members/invitation.js';
import type { Member, MemberRole } from '../../domain/members/member.js';
import type { MemberRepo } from '../../domain/members/ports.js';
import { lockUntilCommit } from './advisory-lock.js';
import { executeBound } from './sql.js';

interface MemberSqlRow {
  id: string;
  workspace_id: string;
  email: string;
  role: MemberRole;
  password_hash: string | null;
  totp_secret: string | null;
  totp_last_step: string | null;
  recovery_codes: string[];
  created_at: Date;
}

interface InvitationSqlRow {
  id: string;
  workspace_id: string;
  email: string;
  role: MemberRole;
  token_hash: string;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
}

const date = (d: Date | null) => (d === null ? null : new Date(d));

const member = (r: MemberSqlRow): Member => ({
  id: r.id,
  workspaceId: r.workspace_id,
  email: r.email,
  role: r.role,
  passwordHash: r.password_hash,
  totpSecret: r.totp_secret,
  totpLastStep: r.totp_last_step === null ? null : Number(r.totp_last_step),
  recoveryCodes: r.recovery_codes,
  createdAt: new Date(r.created_at),
});

const invitation = (r: InvitationSqlRow): Invitation => ({
  id: r.id,
  workspaceId: r.workspace_id,
  email: r.email,
  role: r.role,
  tokenHash: r.token_hash,
  invitedBy: r.invited_by,
  createdAt: new Date(r.created_at),
  expiresAt: new Date(r.expires_at),
  acceptedAt: date(r.accepted_at),
  revokedAt: date(r.revoked_at),
});

export class PgMemberRepo implements MemberRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[] = []): Promise<T[]> {
    return executeBound<T>(this.em, text, params);
  }

  async byEmail(workspaceId: string, email: string): Promise<Member | null> {
    const [r] = await this.sql<MemberSqlRow>(`select * from workspace_members where workspace_id = ? and email = ?`, [workspaceId, email]);
    return r ? member(r) : null;
  }

  async signInCandidates(email: string, limit: number): Promise<Member[]> {
    const rows = await this.sql<MemberSqlRow>(
      `select * from workspace_members where email = ? and password_hash is not null and totp_secret is not null order by created_at limit ?`,
      [email, limit],
    );
    return rows.map(member);
  }

  async byId(id: string, lock = false): Promise<Member | null> {
    const [r] = await this.sql<MemberSqlRow>(`select * from workspace_members where id = ?${lock ? ' for update' : ''}`, [id]);
    return r ? member(r) : null;
  }

  lockMembership(workspaceId: string): Promise<void> {
    return lockUntilCommit(this.em, `membership:${workspaceId}`);
  }

  async list(workspaceId: string): Promise<Member[]> {
    const rows = await this.sql<MemberSqlRow>(`select * from workspace_members where workspace_id = ? order by created_at, id`, [workspaceId]);
    return rows.map(member);
  }

  async openInvitations(workspaceId: string, now: Date): Promise<Invitation[]> {
    const rows = await this.sql<InvitationSqlRow>(
      `select * from member_invitations where workspace_id = ? and accepted_at is null and revoked_at is null and expires_at > ? order by created_at desc`,
      [workspaceId, now],
    );
    return rows.map(invitation);
  }

  async save(m: Member): Promise<void> {
    await this.sql(
      `insert into workspace_members (id, workspace_id, email, role, password_hash, totp_secret, totp_last_step, recovery_codes, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)
       on conflict (id) do update set role = excluded.role, password_hash = excluded.password_hash, totp_secret = excluded.totp_secret,
         totp_last_step = excluded.totp_last_step, recovery_codes = excluded.recovery_codes`,
      [m.id, m.workspaceId, m.email, m.role, m.passwordHash, m.totpSecret, m.totpLastStep, JSON.stringify(m.recoveryCodes), m.createdAt],
    );
  }

  async remove(id: string): Promise<void> {
    await this.sql(`delete from workspace_members where id = ?`, [id]);
  }

  async invite(i: Invitation): Promise<void> {
    await this.sql(
      `update member_invitations set revoked_at = ? where workspace_id = ? and email = ? and accepted_at is null and revoked_at is null`,
      [i.createdAt, i.workspaceId, i.email],
    );
    await this.sql(
      `insert into member_invitations (id, workspace_id, email, role, token_hash, invited_by, created_at, expires_at, accepted_at, revoked_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [i.id, i.workspaceId, i.email, i.role, i.tokenHash, i.invitedBy, i.createdAt, i.expiresAt, i.acceptedAt, i.revokedAt],
    );
  }

  async invitationByTokenHash(tokenHash: string): Promise<Invitation | null> {
    const [r] = await this.sql<InvitationSqlRow>(`select * from member_invitations where token_hash = ? for update`, [tokenHash]);
    return r ? invitation(r) : null;
  }

  async acceptInvitation(id: string, at: Date): Promise<void> {
    await this.sql(`update member_invitations set accepted_at = ? where id = ?`, [at, id]);
  }

  async revokeInvitation(workspaceId: string, id: string, at: Date): Promise<boolean> {
    const rows = await this.sql(
      `update member_invitations set revoked_at = ? where id = ? and workspace_id = ? and accepted_at is null and revoked_at is null returning id`,
      [at, id, workspaceId],
    );
    return rows.length === 1;
  }

  async revokeInvitationsBy(memberId: string, at: Date): Promise<void> {
    await this.sql(`update member_invitations set revoked_at = ? where invited_by = ? and accepted_at is null and revoked_at is null`, [at, memberId]);
  }

  async approve(withdrawalId: string, memberId: string, at: Date): Promise<boolean> {
    const rows = await this.sql(
      `insert into withdrawal_approvals (withdrawal_id, member_id, approved_at) values (?, ?, ?) on conflict do nothing returning member_id`,
      [withdrawalId, memberId, at],
    );
    return rows.length === 1;
  }

  async approvers(withdrawalId: string): Promise<{ memberId: string; email: string; at: Date }[]> {
    const rows = await this.sql<{ member_id: string; email: string; approved_at: Date }>(
      `select a.member_id, m.email, a.approved_at from withdrawal_approvals a join workspace_members m on m.id = a.member_id
        where a.withdrawal_id = ? order by a.approved_at, m.email`,
      [withdrawalId],
    );
    return rows.map((r) => ({ memberId: r.member_id, email: r.email, at: new Date(r.approved_at) }));
  }
}
