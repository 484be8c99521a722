// The audit log as owners read it (issue 32, ADR 0033): newest first, a page
// at a time, and the whole log for export.
import { inject, injectable } from 'tsyringe';
import type { AuditEntry } from '../../domain/members/audit.js';
import type { UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export const AUDIT_PAGE = 100;
/** The most an export holds (newest first). */
export const AUDIT_EXPORT_MAX = 100_000;

@injectable()
export class ReadAuditLog {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  page(workspaceId: string, before?: Date): Promise<AuditEntry[]> {
    return this.uow.read((tx) => tx.audit.list(workspaceId, { limit: AUDIT_PAGE, before }));
  }

  all(workspaceId: string): Promise<AuditEntry[]> {
    return this.uow.read((tx) => tx.audit.list(workspaceId, { limit: AUDIT_EXPORT_MAX }));
  }
}
