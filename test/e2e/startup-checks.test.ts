// Start-up refuses, in one line naming the cause, what would otherwise fail
// later or silently: an unreachable, missing or unmigrated database, a bad
// TRUST_PROXY. The ops CLI keeps its --json promise (README.md#operator-cli)
// even then.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { clusterDir } from '../../src/adapters/sandbox/cluster.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { freePortBlock } from '../support/free-port.js';
import { opsEnv, runEntry } from '../support/processes.js';
import { removeDataDir } from '../support/data-dir.js';

const adminUrl = inject('pgAdminUrl');
const emptyDb = `empty_${randomBytes(4).toString('hex')}`;
const missingDb = `missing_${randomBytes(4).toString('hex')}`;
const urlOf = (name: string) => Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
let dataDir: string;
let ports: string[] = [];

const admin = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-startup-'));
  // One block of seven: npm start also takes PORT+4 to PORT+6 for its local nodes, which three ports the system
  // handed out (in its ephemeral range, where other connections come and go) do not keep free.
  const base = await freePortBlock(7);
  ports = [base, base + 1, base + 2].map(String);
  await admin((c) => c.query(`create database "${emptyDb}"`));
});
afterAll(async () => {
  await admin(async (c) => {
    await c.query(`drop database if exists "${emptyDb}" with (force)`);
    await c.query(`drop database if exists "${missingDb}" with (force)`);
  });
  removeDataDir(dataDir);
});

const env = (extra: NodeJS.ProcessEnv) => {
  const { DATABASE_URL: _u, ...rest } = process.env;
  return { ...rest, DATA_DIR: dataDir, PORT: ports[0], CHAIN_WORKER_PORT: ports[1], DISPATCHER_PORT: ports[2], LOG_LEVEL: 'warn', ...extra };
};

describe('start-up checks', () => {
  it('the api refuses an unmigrated database in one line, and never creates a missing one', async () => {
    const unmigrated = await runEntry('src/bootstrap/api.ts', env({ DATABASE_URL: urlOf(emptyDb) }));
    expect(unmigrated.code).toBe(1);
    expect(unmigrated.stderr.trim()).toMatch(/^Startup error: the database is not migrated \(\d+ of its migrations pending, from Migration\w+\): run the migration runner/);
    const missing = await runEntry('src/bootstrap/chain-worker.ts', env({ DATABASE_URL: urlOf(missingDb) }));
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toMatch(/^Startup error: DATABASE_URL: cannot connect to the database \(.*does not exist/);
    const created = await admin((c) => c.query('select 1 from pg_database where datname = $1', [missingDb]));
    expect(created.rowCount).toBe(0);
  }, 60_000);

  it('refuses a TRUST_PROXY express could not use, naming it', async () => {
    for (const value of ['garbage', '10.0.0.0/99', 'loopback, 300.1.1.1']) {
      const res = await runEntry('src/bootstrap/api.ts', env({ DATABASE_URL: urlOf(emptyDb), TRUST_PROXY: value }));
      expect([res.code, res.stderr.trim().split('\n').length]).toEqual([1, 1]);
      expect(res.stderr).toMatch(/^Configuration error: TRUST_PROXY: /);
    }
  }, 60_000);

  it('ops --json prints one JSON object on stdout when it cannot even start', async () => {
    const cases: [NodeJS.ProcessEnv, string, RegExp][] = [
      [{ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }, 'DATABASE_ERROR', /cannot connect/],
      [{ DATABASE_URL: urlOf(emptyDb) }, 'DATABASE_ERROR', /not migrated/],
      [{ DATABASE_URL: urlOf(emptyDb), PORT: 'eighty' }, 'VALIDATION_ERROR', /^Configuration error: PORT: /],
    ];
    for (const [extra, code, message] of cases) {
      const res = await runEntry('src/bootstrap/ops.ts', { ...env(extra), SECRET_ENCRYPTION_KEY: opsEnv('').SECRET_ENCRYPTION_KEY, MASTER_SEED: opsEnv('').MASTER_SEED }, ['ledger', 'check', '--json']);
      expect(res.code).toBe(1);
      const out = JSON.parse(res.stdout) as { error: string; code: string };
      expect(out.code).toBe(code);
      expect(out.error).toMatch(message);
    }
  }, 60_000);
});

describe('a process run on its own', () => {
  it('refuses to start without DATABASE_URL outside production in one line, not a stack trace', async () => {
    const { DATABASE_URL: _u, NODE_ENV: _n, ...rest } = process.env;
    const res = await runEntry('src/bootstrap/api.ts', { ...rest, DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe('Startup error: DATABASE_URL: required to run a process on its own (npm start sets it for the processes it runs)');
    expect(res.stdout).toBe('');
  });
});

describe('the sandbox on a bad DATA_DIR', () => {
  it('refuses a DATA_DIR that is a file in one line, in npm start and in ops', async () => {
    const file = join(dataDir, 'not-a-directory');
    writeFileSync(file, 'x');
    const start = await runEntry('src/bootstrap/start.ts', env({ DATA_DIR: file }));
    expect([start.code, start.stdout.trim()]).toEqual([1, '']);
    expect(start.stderr.trim()).toBe(`Startup error: DATA_DIR: cannot use ${file} as a directory (EEXIST)`);
    const ops = await runEntry('src/bootstrap/ops.ts', env({ DATA_DIR: join(file, 'sub') }), ['ledger', 'check', '--json']);
    expect(ops.code).toBe(1);
    expect(JSON.parse(ops.stdout).error).toMatch(/^Configuration error: DATA_DIR: no sandbox in /);
  }, 60_000);

  it('says why the embedded PostgreSQL would not start, in the server\'s words', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'wallet-broken-'));
    try {
      chmodSync(broken, 0o755); // open to others: as root too, the cluster is DATA_DIR/postgres
      mkdirSync(join(broken, 'postgres'), { recursive: true });
      writeFileSync(join(broken, 'postgres', 'PG_VERSION'), '7\n'); // a cluster of another major version
      const res = await runEntry('src/bootstrap/start.ts', env({ DATA_DIR: broken }));
      expect(res.code).toBe(1);
      expect(res.stderr).not.toMatch(/undefined/);
      expect(res.stderr.trim().split('\n').at(-1)).toMatch(/^Startup error: the database did not start \(.+\)$/);
    } finally {
      removeDataDir(broken);
    }
  }, 60_000);

  it('never changes the permissions of an existing DATA_DIR (it may be a shared directory), and makes a missing one 0700', () => {
    const shared = mkdtempSync(join(tmpdir(), 'wallet-shared-'));
    try {
      chmodSync(shared, 0o1777);
      expect(clusterDir(shared)).toBe(join(shared, 'postgres'));
      expect(statSync(shared).mode & 0o7777).toBe(0o1777);
      chmodSync(shared, 0o700);
      const closed = clusterDir(shared);
      expect(statSync(shared).mode & 0o7777).toBe(0o700);
      // As root the server runs as the postgres user, which cannot pass through a closed DATA_DIR: its cluster is elsewhere.
      expect(closed).toEqual(process.getuid?.() === 0 ? expect.stringMatching(/^\/var\/tmp\/wallet-sandbox-pg-[0-9a-f]{12}$/) : join(shared, 'postgres'));
      const made = join(shared, 'made', 'here');
      clusterDir(made);
      expect(statSync(made).mode & 0o7777).toBe(0o700);
    } finally {
      removeDataDir(shared);
    }
  });
});
