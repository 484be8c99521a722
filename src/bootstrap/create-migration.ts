// `npm run migration:create [-- --blank] [-- --name NAME]`: MikroORM's migrator
// diffs the entity schemas against the (migrated) database and writes the next
// migration into /migrations; add its name to the list in migrations/index.ts
// to have it run.
import { parseArgs } from 'node:util';
import { migratorOf, openOrm } from '../adapters/persistence/orm.js';
import { startEmbeddedPostgres } from '../adapters/sandbox/embedded-postgres.js';
import { loadConfigOrExit } from './config.js';
import { prepareDatabase } from './prepare-database.js';

const { values } = parseArgs({ options: { blank: { type: 'boolean' }, name: { type: 'string' } } });
const config = loadConfigOrExit();
const db = config.databaseUrl
  ? { url: config.databaseUrl, stop: async () => {} }
  : await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
try {
  await prepareDatabase(db.url);
  const orm = await openOrm({ databaseUrl: db.url, poolMax: 2 });
  try {
    const result = await (await migratorOf(orm)).createMigration(undefined, Boolean(values.blank), false, values.name);
    process.stdout.write(
      result.diff.up.length || values.blank
        ? `wrote migrations/${result.fileName}; add ${result.fileName.replace(/\.ts$/, '')} to the list in migrations/index.ts\n`
        : 'no schema changes to migrate\n',
    );
  } finally {
    await orm.close(true);
  }
} finally {
  await db.stop();
}
