// SessionRepo in PostgreSQL (issue 32, ADR 0033): the dashboard's sessions
// (member_sessions, the cookie's token kept as its SHA-256) and the sign-in
// failures the lockout counts (sign_in_failures).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RecentFailures } from '../../domain/members/lockout.js';
import type { MemberRole } from '../../domain/members/member.js';
import type { SessionRepo } from '../../domain/members/ports.js';
import type { Session, SignedInMember } from '../../domain/members/session.js';
import { executeBound } from './sql.js';

interface SessionSqlRow {
  id: string;
  member_id: string;
  workspace_id: string;
  token_hash: string;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  source: string;
  email: string;
  role: MemberRole;
}

export class PgSessionRepo implements SessionRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[] = []): Promise<T[]> {
    return executeBound<T>(this.em, text, params);
  }

  async create(s: Session): Promise<void> {
    await this.sql(
      `insert into member_sessions (id, member_id, workspace_id, token_hash, csrf_token, created_at, last_seen_at, expires_at, ended_at, source)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [s.id, s.memberId, s.workspaceId, s.tokenHash, s.csrfToken, s.createdAt, s.lastSeenAt, s.expiresAt, s.endedAt, s.source],
    );
  }

  async byTokenHash(tokenHash: string): Promise<SignedInMember | null> {
    const [r] = await this.sql<SessionSqlRow>(
      `select s.*, m.email, m.role from member_sessions s join workspace_members m on m.id = s.member_id where s.token_hash = ?`,
      [tokenHash],
    );
    if (!r) return null;
    const session: Session = {
      id: r.id,
      memberId: r.member_id,
      workspaceId: r.workspace_id,
      tokenHash: r.token_hash,
      csrfToken: r.csrf_token,
      createdAt: new Date(r.created_at),
      lastSeenAt: new Date(r.last_seen_at),
      expiresAt: new Date(r.expires_at),
      endedAt: r.ended_at === null ? null : new Date(r.ended_at),
      source: r.source,
    };
    return { session, memberId: r.member_id, workspaceId: r.workspace_id, email: r.email, role: r.role };
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.sql(`update member_sessions set last_seen_at = greatest(last_seen_at, ?) where id = ?`, [at, id]);
  }

  async end(id: string, at: Date): Promise<void> {
    await this.sql(`update member_sessions set ended_at = coalesce(ended_at, ?) where id = ?`, [at, id]);
  }

  async endAllOf(memberId: string, at: Date): Promise<void> {
    await this.sql(`update member_sessions set ended_at = ? where member_id = ? and ended_at is null`, [at, memberId]);
  }

  async recordFailure(email: string, source: string, at: Date): Promise<string> {
    const id = randomUUID();
    await this.sql(`insert into sign_in_failures (id, email, source, at) values (?, ?, ?, ?)`, [id, email, source, at]);
    // Keep the table small: failures older than a day count for nothing.
    await this.sql(`delete from sign_in_failures where source = ? and at < ?`, [source, new Date(at.getTime() - 86_400_000)]);
    return id;
  }

  async forgetFailure(id: string): Promise<void> {
    await this.sql(`delete from sign_in_failures where id = ?`, [id]);
  }

  /** Keys `session:<id>` count a session's wrong codes; they are left out of the address's count (each wrong code is counted there once already). */
  async countFailures(key: string, since: Date): Promise<number> {
    const [r] = await this.sql<{ n: number }>(`select count(*)::int as n from sign_in_failures where email = ? and at > ?`, [key, since]);
    return r?.n ?? 0;
  }

  async recentFailures(email: string, source: string, since: Date): Promise<RecentFailures> {
    const [r] = await this.sql<{ pair: number; pair_oldest: Date | null; source: number; source_oldest: Date | null }>(
      `select count(*) filter (where email = ?)::int as pair, min(at) filter (where email = ?) as pair_oldest,
              count(*)::int as source, min(at) as source_oldest
         from sign_in_failures where source = ? and at > ? and email not like 'session:%'`,
      [email, email, source, since],
    );
    return {
      pair: r?.pair ?? 0,
      pairOldest: r?.pair_oldest ? new Date(r.pair_oldest) : null,
      source: r?.source ?? 0,
      sourceOldest: r?.source_oldest ? new Date(r.source_oldest) : null,
    };
  }

  async clearFailures(email: string, source: string): Promise<void> {
    await this.sql(`delete from sign_in_failures where email = ? and source = ?`, [email, source]);
  }
}
