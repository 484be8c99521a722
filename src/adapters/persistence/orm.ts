// MikroORM over PostgreSQL: configuration and the migrator. Schema changes go
// only through the migrations in /migrations.
import { MikroORM, defineConfig } from '@mikro-orm/postgresql';
import type { Migrator } from '@mikro-orm/migrations';
import { MIGRATION_NAMES, loadMigrations } from '../../../migrations/index.js';
import { ENTITIES } from './entities/index.js';
import { withoutPreparedStatements } from './sql.js';

export interface OrmOptions {
  databaseUrl: string;
  poolMax?: number;
  /** Prepare the statements that ask for it (ADR 0039); default true. */
  preparedStatements?: boolean;
}

export function ormConfig(opts: OrmOptions) {
  return defineConfig({
    clientUrl: opts.databaseUrl,
    entities: ENTITIES,
    // The migrator (and the command-line libraries it brings) loads only where migrations run: migratorOf.
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    allowGlobalContext: false,
    // Databases are provisioned, never created as a side effect of connecting.
    ensureDatabase: false,
    pool: { min: 0, max: opts.poolMax ?? 10 },
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: 'migrations',
      pathTs: 'migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      silent: true,
    },
  });
}

export async function openOrm(opts: OrmOptions): Promise<MikroORM> {
  const orm = await MikroORM.init(ormConfig(opts));
  if (opts.preparedStatements === false) withoutPreparedStatements(orm);
  return orm;
}

/** Names of the migrations of /migrations this database has not applied (all of them on an empty one). */
export async function pendingMigrations(orm: MikroORM): Promise<string[]> {
  const connection = orm.em.getConnection();
  const [table] = await connection.execute<{ found: string | null }[]>(`select to_regclass('mikro_orm_migrations') as found`);
  if (!table?.found) return [...MIGRATION_NAMES];
  const rows = await connection.execute<{ name: string }[]>('select name from mikro_orm_migrations');
  const applied = new Set(rows.map((r) => r.name));
  return MIGRATION_NAMES.filter((name) => !applied.has(name));
}

/** The ORM's migrator with the migrations of /migrations, both loaded on first use. */
export async function migratorOf(orm: MikroORM): Promise<Migrator> {
  const [{ Migrator }, migrationsList] = await Promise.all([import('@mikro-orm/migrations'), loadMigrations()]);
  orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList });
  Migrator.register(orm);
  return orm.migrator as Migrator;
}

/** Applies pending migrations; returns the names applied. A database at the head loads no migrator. */
export async function migrateUp(orm: MikroORM): Promise<string[]> {
  if ((await pendingMigrations(orm)).length === 0) return [];
  const applied = await (await migratorOf(orm)).up();
  return applied.map((m) => m.name);
}
