// The authentication hot path: one query reads a key and its workspace. No
// cache, so a revocation or deactivation holds from the very next request.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ApiKey } from '../../domain/auth/api-key.js';
import type { CredentialStore } from '../../domain/ports.js';
import type { Workspace } from '../../domain/workspaces/workspace.js';
import { apiKeyFromRow, workspaceFromRow } from './rows.js';

export class PgCredentialStore implements CredentialStore {
  constructor(private readonly orm: MikroORM) {}

  async findCredential(keyId: string): Promise<{ key: ApiKey; workspace: Workspace | null } | null> {
    const rows = await this.orm.em.getConnection().execute<Record<string, unknown>[]>(
      `select k.*, w.id as w_id, w.name as w_name, w.status as w_status, w.withdrawals_frozen as w_withdrawals_frozen,
              w.contact_email as w_contact_email, w.created_at as w_created_at, w.updated_at as w_updated_at
         from api_keys k left join workspaces w on w.id = k.workspace_id
        where k.key_id = ?`,
      [keyId],
    );
    const row = rows[0];
    if (!row) return null;
    return { key: apiKeyFromRow(row), workspace: row.w_id ? workspaceFromRow(row, 'w_') : null };
  }
}
