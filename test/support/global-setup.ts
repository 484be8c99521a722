// One PostgreSQL for the whole run: DATABASE_URL's server when set, else an
// embedded one in a temporary directory. A template database is migrated once;
// every test file clones its own database from it (see database.ts).
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { prepareDatabase } from '../../src/bootstrap/prepare-database.js';
import { startTemporaryPostgres } from '../../src/adapters/sandbox/embedded-postgres.js';
import { freePort } from './free-port.js';

const TEMPLATE = `wallet_template_${process.pid}`;

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let adminUrl: string;
  let stopServer = async () => {};
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
  } else {
    const server = await startTemporaryPostgres({ port: await freePort(), prefix: 'wallet-test-pg-' });
    adminUrl = server.url;
    stopServer = server.stop;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${TEMPLATE}`);
  await admin.query(`create database ${TEMPLATE}`);
  await prepareDatabase(withDatabase(adminUrl, TEMPLATE));
  await admin.end();

  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', TEMPLATE);

  return async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    const { rows } = await c.query<{ datname: string }>(
      `select datname from pg_database where datname like 'wt\\_${process.pid}\\_%' or datname = $1`,
      [TEMPLATE],
    );
    for (const r of rows) await c.query(`drop database if exists "${r.datname}" with (force)`);
    await c.end();
    await stopServer();
  };
}
