// Cleans up after a test run that did not end by itself (Ctrl-C, a kill):
// started by the global setup, detached, with the test runner's pid and the
// run's temporary directory. Once the runner is gone it stops every
// PostgreSQL server whose data lives in that directory (the run's own, and
// the sandboxes' clusters that DATA_DIRs there keep under /var/tmp, found by
// their postgres.cluster markers), then removes all of them. A run that ends
// normally removes the directory itself; the reaper then finds nothing and
// exits.
//   node test/support/reaper.mjs <runner pid> <run directory>
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

const [runner, runDir] = [Number(process.argv[2]), process.argv[3]];
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

/** Directories under `dir` (a few levels down) holding a postmaster.pid or a postgres.cluster marker. */
function clusters(dir, depth = 4, found = []) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const e of entries) {
    if (e.name === 'postmaster.pid') found.push(dir);
    if (e.name === 'postgres.cluster') {
      const other = readFileSync(join(dir, e.name), 'utf8').trim();
      if (other.startsWith('/var/tmp/wallet-sandbox-pg-')) found.push(other);
    }
    if (e.isDirectory() && depth > 0) clusters(join(dir, e.name), depth - 1, found);
  }
  return found;
}

/** The postmaster's pid of a cluster directory, if it runs. */
function postmaster(dir) {
  for (const file of [join(dir, 'postmaster.pid'), join(dir, 'data', 'postmaster.pid')]) {
    try {
      const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
      if (pid > 0 && alive(pid)) return pid;
    } catch {
      /* none here */
    }
  }
  return null;
}

while (alive(runner)) await sleep(500);
if (!existsSync(runDir)) process.exit(0);
// Whatever the signal left running gets a moment to stop by itself, then is stopped.
await sleep(2000);
const found = [...new Set(clusters(runDir))];
for (const dir of found) {
  const pid = postmaster(dir);
  if (pid === null) continue;
  process.kill(pid, 'SIGQUIT'); // immediate shutdown: nothing is kept anyway
  for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}
for (const dir of found) if (dir.startsWith('/var/tmp/wallet-sandbox-pg-') && statSync(dir, { throwIfNoEntry: false })) rmSync(dir, { recursive: true, force: true });
rmSync(runDir, { recursive: true, force: true });
