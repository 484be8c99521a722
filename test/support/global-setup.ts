// One PostgreSQL for the whole run: DATABASE_URL's server when set, else an
// embedded one in a temporary directory. A template database is migrated once;
// every test file clones its own database from it (see database.ts).
// Everything the run puts in the temporary directory (that server, every
// test's DATA_DIR and the clusters they keep under /var/tmp) lives in one
// directory of its own, TMPDIR for the test processes: removed at the end,
// and by a detached reaper when the run is interrupted (Ctrl-C).
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { prepareDatabase } from '../../src/bootstrap/prepare-database.js';
import { startTemporaryPostgres } from '../../src/adapters/sandbox/embedded-postgres.js';
import { freePort } from './free-port.js';
import { COMPILED_ENV, removeTranspiled, transpileSource } from './compiled-source.js';

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
  const runDir = mkdtempSync(join(tmpdir(), 'wallet-test-run-'));
  chmodSync(runDir, 0o755); // as root, the embedded servers run as the postgres user, who must pass through it
  process.env.TMPDIR = runDir; // the test processes, and what they start, inherit it
  const reaper = spawn(process.execPath, [join(import.meta.dirname, 'reaper.mjs'), String(process.pid), runDir], { detached: true, stdio: 'ignore' });
  reaper.unref();
  // The service's processes start from JavaScript transpiled once for the run (compiled-source.ts).
  const compiled = await transpileSource();
  process.env[COMPILED_ENV] = compiled;
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
    rmSync(runDir, { recursive: true, force: true });
    removeTranspiled(compiled);
    reaper.kill();
  };
}
