// Brings a database to the current schema: MikroORM migrations, then pg-boss's
// own schema and the queues of the job catalogue. Idempotent. Processes that
// prepare one database at once (`npm start` and an `ops` command started
// beside it, two replicas' `migrate`) queue on a session-level advisory lock
// held by a connection of its own: run together, the migrations collide on
// their tables and pg-boss's queue creation deadlocks; one after the other,
// the second finds everything in place.
import pg from 'pg';
import { installQueues, createBoss } from '../adapters/jobs/pg-boss-jobs.js';
import { migrateUp, openOrm } from '../adapters/persistence/orm.js';

const PREPARE_LOCK = 'wallet-service:prepare-database';

export async function prepareDatabase(databaseUrl: string): Promise<{ applied: string[] }> {
  const lock = new pg.Client({ connectionString: databaseUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock(hashtextextended($1, 0))', [PREPARE_LOCK]);
    const orm = await openOrm({ databaseUrl, poolMax: 2 });
    try {
      const applied = await migrateUp(orm);
      const boss = createBoss(databaseUrl, { supervise: false, schedule: false });
      await boss.start();
      try {
        await installQueues(boss);
      } finally {
        await boss.stop({ graceful: false, wait: true });
      }
      return { applied };
    } finally {
      await orm.close(true);
    }
  } finally {
    // Ending the session releases the lock, whatever happened.
    await lock.end();
  }
}
