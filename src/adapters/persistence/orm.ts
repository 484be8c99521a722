// MikroORM over PostgreSQL: configuration and the migrator. Schema changes go
// only through the migrations in /migrations.
import { MikroORM, defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { MIGRATIONS } from '../../../migrations/index.js';
import { ENTITIES } from './entities/index.js';

export interface OrmOptions {
  databaseUrl: string;
  poolMax?: number;
}

export function ormConfig(opts: OrmOptions) {
  return defineConfig({
    clientUrl: opts.databaseUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    allowGlobalContext: false,
    // Databases are provisioned, never created as a side effect of connecting.
    ensureDatabase: false,
    pool: { min: 0, max: opts.poolMax ?? 10 },
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: 'migrations',
      pathTs: 'migrations',
      migrationsList: MIGRATIONS,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      silent: true,
    },
  });
}

export function openOrm(opts: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(opts));
}

/** Names of the migrations of /migrations this database has not applied (all of them on an empty one). */
export async function pendingMigrations(orm: MikroORM): Promise<string[]> {
  const connection = orm.em.getConnection();
  const [table] = await connection.execute<{ found: string | null }[]>(`select to_regclass('mikro_orm_migrations') as found`);
  if (!table?.found) return MIGRATIONS.map((m) => m.name);
  const rows = await connection.execute<{ name: string }[]>('select name from mikro_orm_migrations');
  const applied = new Set(rows.map((r) => r.name));
  return MIGRATIONS.map((m) => m.name).filter((name) => !applied.has(name));
}

/** Applies pending migrations; returns the names applied. */
export async function migrateUp(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
