// IdempotencyStore in PostgreSQL. The in-flight guard is a transaction-scoped
// advisory lock on the scope: it disappears with the transaction, so a crash
// can never leave a key stuck, and the record is written in the same
// transaction as the operation it guards.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { IdempotencyRecord, IdempotencyScope } from '../../domain/idempotency/idempotency.js';
import type { NetworkSide } from '../../domain/money/networks.js';
import type { IdempotencyClaim, IdempotencyPurger, IdempotencyStore } from '../../domain/ports.js';
import { IdempotencyKeyEntity } from './entities/idempotency-key-entity.js';
import { executeInline } from './sql.js';

const lockName = (s: IdempotencyScope): string =>
  JSON.stringify(['idempotency', s.workspaceId, s.side, s.method, s.path, s.key]);

export class PgIdempotencyStore implements IdempotencyStore {
  constructor(private readonly em: EntityManager) {}

  /**
   * The lock and the lookup in one round trip, through `idempotency_claim` (migration
   * Migration20261128190000_idempotency_claim): its lookup runs after the lock on a fresh snapshot, so a first
   * request that committed (and released the lock) an instant before is seen.
   */
  async claim(scope: IdempotencyScope, now: Date): Promise<IdempotencyClaim> {
    const [row] = await this.sql<{ locked: boolean; fingerprint: string | null; response_status: number | null; response_body: string | null; created_at: Date | string | null; expires_at: Date | string | null }>(
      `select * from idempotency_claim(?, ?, ?, ?, ?, ?, ?)`,
      [lockName(scope), scope.workspaceId, scope.side, scope.method, scope.path, scope.key, now],
    );
    if (!row?.locked) return { locked: false };
    if (row.fingerprint === null) return { locked: true, existing: null };
    return {
      locked: true,
      existing: {
        ...scope,
        side: scope.side as NetworkSide,
        fingerprint: row.fingerprint,
        response: { status: row.response_status!, body: row.response_body! },
        createdAt: new Date(row.created_at!),
        expiresAt: new Date(row.expires_at!),
      },
    };
  }

  /** Stores the record, replacing an expired one under the same scope. */
  async save(record: IdempotencyRecord): Promise<void> {
    await this.sql(
      `insert into idempotency_keys (workspace_id, side, method, path, key, fingerprint, response_status, response_body, created_at, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (workspace_id, side, method, path, key) do update set fingerprint = excluded.fingerprint,
         response_status = excluded.response_status, response_body = excluded.response_body, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      [record.workspaceId, record.side, record.method, record.path, record.key, record.fingerprint, record.response.status, record.response.body, record.createdAt, record.expiresAt],
    );
  }

  private sql<T extends object>(text: string, params: unknown[]): Promise<T[]> {
    return executeInline<T>(this.em, text, params, this.em.getTransactionContext());
  }
}

export class PgIdempotencyPurger implements IdempotencyPurger {
  constructor(private readonly orm: MikroORM) {}

  purgeExpired(now: Date): Promise<number> {
    return this.orm.em.fork().nativeDelete(IdempotencyKeyEntity, { expiresAt: { $lte: now } });
  }
}
