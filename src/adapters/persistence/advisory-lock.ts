// A transaction-scoped advisory lock on a name: taken in the caller's
// transaction and held until it ends, so callers naming the same thing
// (count-then-insert under a limit) run one after another.
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInline } from './sql.js';

export async function lockUntilCommit(em: EntityManager, name: string): Promise<void> {
  const tx = em.getTransactionContext();
  if (!tx) throw new Error(`locking ${name} needs a transaction: the lock lasts until the transaction ends`);
  await executeInline(em, 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [name], tx);
}
