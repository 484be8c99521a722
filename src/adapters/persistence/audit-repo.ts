// AuditRepo in PostgreSQL (issue 32, ADR 0033): the append-only audit log of
// members' and the operator's actions on a workspace (member_audit).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditEntry } from '../../domain/members/audit.js';
import type { AuditRepo } from '../../domain/members/ports.js';
import { executeBound } from './sql.js';

interface AuditSqlRow {
  id: string;
  workspace_id: string;
  member_id: string | null;
  actor: string;
  source: string;
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
  at: Date;
}

export class PgAuditRepo implements AuditRepo {
  constructor(private readonly em: EntityManager) {}

  async record(e: AuditEntry): Promise<void> {
    await executeBound(
      this.em,
      `insert into member_audit (id, workspace_id, member_id, actor, source, action, target, before, after, at)
       values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)`,
      [e.id, e.workspaceId, e.actor.memberId, e.actor.label, e.actor.source, e.action, e.target, json(e.before), json(e.after), e.at],
    );
  }

  async list(workspaceId: string, opts: { limit: number; before?: Date }): Promise<AuditEntry[]> {
    const rows = await executeBound<AuditSqlRow>(
      this.em,
      `select * from member_audit where workspace_id = ? ${opts.before ? 'and at < ?' : ''} order by at desc, id desc limit ?`,
      opts.before ? [workspaceId, opts.before, opts.limit] : [workspaceId, opts.limit],
    );
    return rows.map((r) => ({
      id: r.id,
      workspaceId: r.workspace_id,
      actor: { memberId: r.member_id, label: r.actor, source: r.source },
      action: r.action,
      target: r.target,
      before: r.before,
      after: r.after,
      at: new Date(r.at),
    }));
  }
}

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
