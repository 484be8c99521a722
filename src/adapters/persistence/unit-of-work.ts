// The unit of work: one MikroORM transaction whose repositories and job queue
// all write through the same connection, so state and jobs commit together.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/knex';
import type PgBoss from 'pg-boss';
import type { TxContext, UnitOfWork } from '../../domain/ports.js';
import { TransactionalJobQueue } from '../jobs/pg-boss-jobs.js';
import { MikroApiKeyRepo } from './api-key-repo.js';
import { MikroWorkspaceRepo } from './workspace-repo.js';

export class MikroUnitOfWork implements UnitOfWork {
  constructor(
    private readonly orm: MikroORM,
    private readonly boss: PgBoss,
  ) {}

  run<T>(work: (ctx: TxContext) => Promise<T>): Promise<T> {
    return this.orm.em.fork().transactional(async (em: EntityManager) => {
      const trx = em.getTransactionContext<Knex.Transaction>();
      if (!trx) throw new Error('unit of work started outside a transaction');
      const ctx: TxContext = {
        workspaces: new MikroWorkspaceRepo(em),
        apiKeys: new MikroApiKeyRepo(em),
        jobs: new TransactionalJobQueue(this.boss, trx),
      };
      return work(ctx);
    });
  }
}
