// PostgreSQL array literals for bulk statements (`unnest(?::uuid[], …)`): one
// parameter per column however many rows, far cheaper to bind and plan than a
// VALUES list of thousands of parameters.
import type { EntityManager } from '@mikro-orm/postgresql';

/** `{"a","b",NULL}`: every element quoted, backslashes and quotes escaped, null as NULL. */
export const pgArrayLiteral = (items: readonly (string | number | null)[]): string =>
  `{${items.map((v) => (v === null ? 'NULL' : `"${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(',')}}`;

/**
 * Runs a bulk statement with its parameters bound by the driver, on the unit
 * of work's transaction. MikroORM's `execute` inlines every parameter into the
 * SQL text, which for megabytes of array literals costs more than the insert.
 */
export async function executeBound<T = unknown>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const knex = em.getConnection().getKnex();
  const query = knex.raw(sql, params as never[]);
  const ctx = em.getTransactionContext();
  if (ctx) query.transacting(ctx);
  const res = (await query) as { rows: T[] };
  return res.rows;
}
