// The entity manager to read with outside a repository of the unit of work:
// the running transaction's, when there is one (reading on a second pooled
// connection while a transaction holds the first can exhaust the pool under
// load and deadlock), else a fresh fork.
import { TransactionContext } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

export function currentEntityManager(orm: MikroORM): EntityManager {
  const inTx = TransactionContext.getEntityManager(orm.em.name) as EntityManager | undefined;
  return inTx?.isInTransaction() ? inTx : orm.em.fork();
}
