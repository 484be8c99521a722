// The authentication hot path: one query reads a key and its workspace. No
// cache, so a revocation or deactivation holds from the very next request.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ApiKey } from '../../domain/auth/api-key.js';
import type { CredentialStore } from '../../domain/ports.js';
import type { Workspace } from '../../domain/workspaces/workspace.js';
import { ApiKeyEntity, WorkspaceEntity } from './entities/index.js';

export class PgCredentialStore implements CredentialStore {
  constructor(private readonly orm: MikroORM) {}

  async findCredential(keyId: string): Promise<{ key: ApiKey; workspace: Workspace | null } | null> {
    const em = this.orm.em.fork();
    const rows = await em.getConnection().execute<Record<string, unknown>[]>(
      `select k.*, w.id as w_id, w.name as w_name, w.status as w_status,
              w.withdrawals_frozen as w_withdrawals_frozen, w.created_at as w_created_at, w.updated_at as w_updated_at
         from api_keys k left join workspaces w on w.id = k.workspace_id
        where k.key_id = ?`,
      [keyId],
    );
    const row = rows[0];
    if (!row) return null;
    const key = em.map(ApiKeyEntity, row);
    const workspace = row.w_id
      ? em.map(WorkspaceEntity, {
          // the join's aliased columns, under the table's own names
          id: row.w_id,
          name: row.w_name,
          status: row.w_status,
          withdrawals_frozen: row.w_withdrawals_frozen,
          created_at: row.w_created_at,
          updated_at: row.w_updated_at,
        } as Record<string, any>)
      : null;
    return { key: { ...key }, workspace: workspace ? { ...workspace } : null };
  }
}
