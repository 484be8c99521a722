// ApiKeyRepo over MikroORM, bound to the entity manager of one transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ApiKey } from '../../domain/auth/api-key.js';
import type { ApiKeyRepo } from '../../domain/ports.js';
import { ApiKeyEntity } from './entities/index.js';

export class MikroApiKeyRepo implements ApiKeyRepo {
  constructor(private readonly em: EntityManager) {}

  async add(key: ApiKey): Promise<void> {
    await this.em.persist(this.em.create(ApiKeyEntity, key)).flush();
  }

  findByKeyId(keyId: string): Promise<ApiKey | null> {
    return this.em.findOne(ApiKeyEntity, { keyId });
  }
}
