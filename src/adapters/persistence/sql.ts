// Hand-written statements straight to the pg connection (issue 35, the
// request path). The repositories' SQL used to go through MikroORM's
// `Connection.execute` and knex's raw query runner: per statement about 60 µs
// of CPU on this machine beyond the driver's own (the runner's query object,
// its bindings pass, the transaction client's checks, the ORM's logger
// context), a tenth of a withdrawal's CPU in the api. Both helpers here keep
// the statement exactly as it was sent before and take the same connection:
//
// - executeInline: the parameters inlined by MikroORM's own formatter
//   (Platform.formatQuery, as `execute` did), sent as one simple query.
// - executeBound: the parameters bound by the driver, `?` numbered as knex
//   numbers them (`\?` a literal question mark), for the bulk statements
//   whose array literals would cost more to inline than to insert.
//
// Inside a unit of work the statement runs on its transaction's connection
// (refused once the transaction has ended, as knex refuses it); outside, on
// a connection of the pool for that one statement.
import type { Knex } from '@mikro-orm/knex';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

interface PgResult {
  rows: unknown[];
}

interface PgConnection {
  query(text: string | { name: string; text: string; values: unknown[] }, values?: unknown[]): Promise<PgResult | PgResult[]>;
}

type Transaction = Knex.Transaction & { isCompleted(): boolean };

/** Numbered statements kept per text (the texts are the code's own; past this many the cache starts again). */
const NUMBERED_KEPT = 2_000;
const numbered = new Map<string, { text: string; count: number }>();

/** The rows of a statement; a text of several statements gives one array per statement (as MikroORM's 'all'). */
const rowsOf = <T>(res: PgResult | PgResult[]): T[] => (Array.isArray(res) ? res.map((r) => r.rows) : res.rows) as T[];

async function onConnection<T>(em: EntityManager, ctx: Knex.Transaction | undefined, run: (c: PgConnection) => Promise<T>): Promise<T> {
  if (ctx) {
    if ((ctx as Transaction).isCompleted()) throw new Error('Transaction query already complete: a statement after its unit of work ended');
    return run((await (ctx.client as Knex.Client).acquireConnection()) as PgConnection);
  }
  const client = em.getConnection().getKnex().client as Knex.Client;
  const conn = (await client.acquireConnection()) as PgConnection;
  try {
    return await run(conn);
  } finally {
    await client.releaseConnection(conn);
  }
}

/**
 * `text` with its `?` placeholders filled in by MikroORM's formatter, on `ctx`'s
 * connection when given (pass `em.getTransactionContext()` to run in the unit of
 * work), else on one of the pool's: what `em.getConnection().execute(text, params,
 * 'all', ctx)` ran, without the query runner around it.
 */
export function executeInline<T>(em: EntityManager, text: string, params: readonly unknown[], ctx: Knex.Transaction | undefined): Promise<T[]> {
  const sql = params.length > 0 ? em.getPlatform().formatQuery(text, params as unknown[]) : text;
  return onConnection(em, ctx, async (c) => rowsOf<T>(await c.query(sql)));
}

/** knex's numbering of a raw statement's bindings: `?` → `$n`, `\?` → `?`; null when the text uses `??` (identifiers). */
export function numberedPlaceholders(text: string): { text: string; count: number } | null {
  if (text.includes('??')) return null;
  let count = 0;
  const out = text.replace(/(\\*)\?/g, (_match, escapes: string) => (escapes.length % 2 === 1 ? '?' : `$${++count}`));
  return { text: out, count };
}

/** Names of the prepared statements, by text; at most this many (the hot statements are few and fixed). */
const PREPARED_KEPT = 200;
const prepared = new Map<string, string>();

/** The ORMs whose connections prepare nothing (DATABASE_PREPARED_STATEMENTS=false: a pooler in transaction mode that cannot keep them). */
const unprepared = new WeakSet<object>();

/** Every statement of this ORM runs unnamed, `prepare` or not. */
export function withoutPreparedStatements(orm: MikroORM): void {
  unprepared.add(orm.config);
}

/**
 * A statement with its parameters bound by the driver, on the unit of work's
 * transaction when there is one: what `knex.raw(sql, params).transacting(trx)`
 * sent, without the query runner around it.
 *
 * `prepare`: the statement is prepared once per connection under a name of its
 * own and then only bound and run, so PostgreSQL stops parsing and planning it
 * on every call (issue 35: the admission statement's parse and plan were most
 * of PostgreSQL's CPU in a signed read). Only for fixed texts of the code's own
 * (a text built from its input would prepare a statement per shape on every
 * connection; past {@link PREPARED_KEPT} texts the rest run unprepared).
 */
export async function executeBound<T = unknown>(em: EntityManager, sql: string, params: readonly unknown[], opts: { prepare?: boolean } = {}): Promise<T[]> {
  let statement = numbered.get(sql);
  if (statement === undefined) {
    const made = numberedPlaceholders(sql);
    if (made === null) throw new Error('executeBound takes ? placeholders only (no ?? identifiers)');
    if (numbered.size >= NUMBERED_KEPT) numbered.clear();
    numbered.set(sql, made);
    statement = made;
  }
  if (statement.count !== params.length) throw new Error(`Expected ${statement.count} bindings, saw ${params.length}`);
  if (params.includes(undefined)) throw new Error(`Undefined binding(s) detected for the statement: ${sql.slice(0, 120)}`);
  const { text } = statement;
  const name = opts.prepare && !unprepared.has(em.config) ? preparedName(sql) : undefined;
  const query = name === undefined ? undefined : { name, text, values: params as unknown[] };
  return onConnection(em, em.getTransactionContext<Knex.Transaction>(), async (c) => rowsOf<T>(await (query ? c.query(query) : c.query(text, params as unknown[]))));
}

function preparedName(sql: string): string | undefined {
  let name = prepared.get(sql);
  if (name === undefined && prepared.size < PREPARED_KEPT) prepared.set(sql, (name = `wallet_${prepared.size + 1}`));
  return name;
}
