// ApiKeyRepo over MikroORM, bound to the entity manager of one transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKey } from '../../domain/auth/api-key.js';
import type { NetworkSide } from '../../domain/money/networks.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { ApiKeyRepo } from '../../domain/ports.js';
import { ApiKeyEntity } from './entities/index.js';
import { lockUntilCommit } from './advisory-lock.js';
import { countRows, findPage } from './find-page.js';

export class MikroApiKeyRepo implements ApiKeyRepo {
  constructor(private readonly em: EntityManager) {}

  async add(key: ApiKey): Promise<void> {
    await this.em.persist(this.em.create(ApiKeyEntity, key)).flush();
  }

  findByKeyId(keyId: string): Promise<ApiKey | null> {
    return this.em.findOne(ApiKeyEntity, { keyId });
  }

  async listActive(workspaceId: string, side: NetworkSide, now: Date, page: PageRequest): Promise<Page<ApiKey>> {
    // At most MAX_ACTIVE_KEYS_PER_SIDE active keys: an exact count of so few rows stays flat.
    const q = { table: 'api_keys', orderBy: 'created_at', where: 'workspace_id = ? and is_test = ? and revoked_at is null and (expires_at is null or expires_at > ?)', params: [workspaceId, side === 'test', now] };
    return findPage(this.em, ApiKeyEntity, q, () => countRows(this.em, q.table, q.where, q.params), page);
  }

  async countActiveForUpdate(workspaceId: string, side: NetworkSide, now: Date): Promise<number> {
    await lockUntilCommit(this.em, `api-keys:${workspaceId}:${side}`);
    return this.em.count(ApiKeyEntity, {
      workspaceId,
      isTest: side === 'test',
      revokedAt: null,
      $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
    });
  }

  async revoke(id: string, workspaceId: string, side: NetworkSide, at: Date): Promise<boolean> {
    const n = await this.em.nativeUpdate(
      ApiKeyEntity,
      { id, workspaceId, isTest: side === 'test', revokedAt: null },
      { revokedAt: at },
    );
    return n > 0;
  }
}
