// MemberRepo in PostgreSQL (issue 32, ADR 0033): the members of a workspace
// (workspace_members) and their one-time invitations (member_invitations).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Invitation } from '../../domain/members/invitation.js';
import type { Member, MemberRole } from '../../domain/members/member.js';
import type { MemberRepo } from '../../domain/members/ports.js';
import { executeBound } from './pg-array.js';

interface MemberSqlRow {
  id: string;
  workspace_id: string;
  email: string;
  role: MemberRole;
  password_hash: string | null;
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

export class PgMemberRepo implements MemberRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[] = []): Promise<T[]> {
    return executeBound<T>(this.em, text, params);
  }

  async byEmail(workspaceId: string, email: string): Promise<Member | null> {
    const [r] = await this.sql<MemberSqlRow>(`select * from workspace_members where workspace_id = ? and email = ?`, [workspaceId, email]);
    return r ? { id: r.id, workspaceId: r.workspace_id, email: r.email, role: r.role, passwordHash: r.password_hash, createdAt: new Date(r.created_at) } : null;
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
    return r
      ? {
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
        }
      : null;
  }
}
