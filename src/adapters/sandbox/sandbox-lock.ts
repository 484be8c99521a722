// One running sandbox per DATA_DIR: `npm start` holds DATA_DIR/sandbox.pid
// (its process id) while it runs. A second start on the same directory is
// refused in one line instead of sharing, and later stopping, the first's
// database.
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';

const lockFile = (dataDir: string) => join(resolve(dataDir), 'sandbox.pid');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the live sandbox holding DATA_DIR, if any (a lock left by a killed one is ignored). */
export function sandboxHolder(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(lockFile(dataDir), 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes DATA_DIR for this process; returns the pid of the sandbox already
 * holding it instead, or null once taken. Safe against two starts at once:
 * the file is created exclusively, and only a dead holder's file is replaced.
 */
export function lockDataDir(dataDir: string): number | null {
  const file = lockFile(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = sandboxHolder(dataDir);
      if (holder !== null) return holder;
      rmSync(file, { force: true }); // left by a sandbox that was killed
    }
  }
  throw new Error(`cannot take ${file}: another sandbox is starting on this DATA_DIR`);
}

/** Gives DATA_DIR back, if this process holds it. */
export function unlockDataDir(dataDir: string): void {
  try {
    if (Number.parseInt(readFileSync(lockFile(dataDir), 'utf8'), 10) === process.pid) rmSync(lockFile(dataDir), { force: true });
  } catch {
    /* nothing to give back */
  }
}
