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

/** Applies pending migrations; returns the names applied. */
export async function migrateUp(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
