// IdempotencyStore in PostgreSQL. The in-flight guard is a transaction-scoped
// advisory lock on the scope: it disappears with the transaction, so a crash
// can never leave a key stuck, and the record is written in the same
// transaction as the operation it guards.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { IdempotencyRecord, IdempotencyScope } from '../../domain/idempotency/idempotency.js';
import type { NetworkSide } from '../../domain/money/networks.js';
import type { IdempotencyPurger, IdempotencyStore } from '../../domain/ports.js';
import { IdempotencyKeyEntity } from './entities/idempotency-key-entity.js';

const lockName = (s: IdempotencyScope): string =>
  JSON.stringify(['idempotency', s.workspaceId, s.side, s.method, s.path, s.key]);

const where = (s: IdempotencyScope) => ({
  workspaceId: s.workspaceId,
  side: s.side,
  method: s.method,
  path: s.path,
  key: s.key,
});

export class PgIdempotencyStore implements IdempotencyStore {
  constructor(private readonly em: EntityManager) {}

  async tryLock(scope: IdempotencyScope): Promise<boolean> {
    const rows = await this.em
      .getConnection()
      .execute<{ locked: boolean }[]>(
        'select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked',
        [lockName(scope)],
        'all',
        this.em.getTransactionContext(),
      );
    return rows[0]?.locked === true;
  }

  async find(scope: IdempotencyScope, now: Date): Promise<IdempotencyRecord | null> {
    const row = await this.em.findOne(IdempotencyKeyEntity, { ...where(scope), expiresAt: { $gt: now } });
    if (!row) return null;
    return {
      ...scope,
      side: row.side as NetworkSide,
      fingerprint: row.fingerprint,
      response: { status: row.responseStatus, body: row.responseBody },
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
    };
  }

  async save(record: IdempotencyRecord): Promise<void> {
    await this.em.nativeDelete(IdempotencyKeyEntity, where(record));
    await this.em.insert(IdempotencyKeyEntity, {
      ...where(record),
      fingerprint: record.fingerprint,
      responseStatus: record.response.status,
      responseBody: record.response.body,
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
    });
  }
}

export class PgIdempotencyPurger implements IdempotencyPurger {
  constructor(private readonly orm: MikroORM) {}

  purgeExpired(now: Date): Promise<number> {
    return this.orm.em.fork().nativeDelete(IdempotencyKeyEntity, { expiresAt: { $lte: now } });
  }
}
