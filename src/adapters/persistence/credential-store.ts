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
    const key = await em.findOne(ApiKeyEntity, { keyId });
    if (!key) return null;
    const workspace = await em.findOne(WorkspaceEntity, { id: key.workspaceId });
    return { key, workspace };
  }
}
