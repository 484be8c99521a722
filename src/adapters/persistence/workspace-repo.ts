// WorkspaceRepo over MikroORM, bound to the entity manager of one transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { WorkspaceRepo } from '../../domain/ports.js';
import type { Workspace, WorkspaceStatus } from '../../domain/workspaces/workspace.js';
import { WorkspaceEntity } from './entities/index.js';
import { workspaceFromRow } from './rows.js';
import { executeInline } from './sql.js';

export class MikroWorkspaceRepo implements WorkspaceRepo {
  constructor(private readonly em: EntityManager) {}

  async add(workspace: Workspace): Promise<void> {
    await this.em.persist(this.em.create(WorkspaceEntity, workspace)).flush();
  }

  async get(id: string): Promise<Workspace | null> {
    const rows = await executeInline<Record<string, unknown>>(this.em, 'select * from workspaces where id = ?', [id], this.em.getTransactionContext());
    return rows[0] ? workspaceFromRow(rows[0]) : null;
  }

  async setStatus(id: string, status: WorkspaceStatus, at: Date): Promise<boolean> {
    const n = await this.em.nativeUpdate(WorkspaceEntity, { id }, { status, updatedAt: at });
    return n > 0;
  }

  async setWithdrawalsFrozen(id: string, frozen: boolean, at: Date): Promise<boolean> {
    const n = await this.em.nativeUpdate(WorkspaceEntity, { id }, { withdrawalsFrozen: frozen, updatedAt: at });
    return n > 0;
  }

  async setContactEmail(id: string, email: string | null, at: Date): Promise<boolean> {
    const n = await this.em.nativeUpdate(WorkspaceEntity, { id }, { contactEmail: email, updatedAt: at });
    return n > 0;
  }
}
