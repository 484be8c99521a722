// Each test file gets its own database, cloned from the migrated template of
// the global setup, so files run in parallel without seeing each other.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const template = inject('pgTemplate');
  const pid = template.split('_').pop();
  const name = `wt_${pid}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        // FILE_COPY (PostgreSQL 15+) copies the template's files after a checkpoint, cheap on the test server
        // (fsync off): about 230 ms a clone here against 500 ms for the default WAL_LOG, which writes every
        // block of the template to the WAL.
        await admin.query(`create database "${name}" template "${template}" strategy file_copy`);
        break;
      } catch (err) {
        // 55006: the template is briefly in use by a concurrent clone.
        if ((err as { code?: string }).code !== '55006' || attempt >= 20) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
