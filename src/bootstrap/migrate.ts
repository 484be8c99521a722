// `npm run migrate`: applies pending migrations for a production deployment
// (DATABASE_URL), or to the sandbox's embedded database when it is not set.
import { loadConfigOrExit, reasonOf } from './config.js';
import { prepareDatabase } from './prepare-database.js';

const config = loadConfigOrExit(process.env, { requireSecrets: false });
const db = config.databaseUrl
  ? { url: config.databaseUrl, stop: async () => {} }
  : // Loaded only here: the sandbox's tooling is not installed in production.
    await (await import('../adapters/sandbox/embedded-postgres.js')).startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
try {
  const { applied } = await prepareDatabase(db.url);
  process.stdout.write(`${JSON.stringify({ applied })}\n`);
} catch (err) {
  // One line naming what failed; a migration that failed has been rolled back whole.
  process.stderr.write(`Migration failed: ${reasonOf(err)}\n`);
  process.exitCode = 1;
} finally {
  await db.stop();
}
