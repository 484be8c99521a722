// Brings a database to the current schema: MikroORM migrations, then pg-boss's
// own schema and the queues of the job catalogue. Idempotent.
import { installQueues, createBoss } from '../adapters/jobs/pg-boss-jobs.js';
import { migrateUp, openOrm } from '../adapters/persistence/orm.js';

export async function prepareDatabase(databaseUrl: string): Promise<{ applied: string[] }> {
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
}
