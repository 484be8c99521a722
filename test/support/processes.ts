// Runs the project's entrypoints as real OS processes, the way `npm start`,
// `npm run ops` and a production deployment do.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { entryArgs } from './compiled-source.js';

/** Runs a TypeScript file through tsx, as `npm start` and `npm run ops` do. */
export const TSX = ['--import', 'tsx'];

/** How an entrypoint runs: from the run's transpiled tree (the default, compiled-source.ts) or through tsx as a person's `npm` command runs it. */
export interface RunAs {
  tsx?: boolean;
}
const nodeArgs = (entry: string, as: RunAs): string[] => (as.tsx ? [...TSX, entry] : entryArgs(entry));

/**
 * The environment of an ops command against a test database: its secrets are
 * given, as a deployment gives them (outside production ops otherwise wants a
 * DATA_DIR holding a sandbox).
 */
export function opsEnv(databaseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    SECRET_ENCRYPTION_KEY: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    MASTER_SEED: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

export interface Spawned {
  child: ChildProcess;
  output: () => string;
  waitFor(pattern: RegExp, timeoutMs: number): Promise<void>;
  exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnEntry(entry: string, env: NodeJS.ProcessEnv, args: string[] = [], as: RunAs = {}): Spawned {
  const child = spawn(process.execPath, [...nodeArgs(entry, as), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  return {
    child,
    output: () => out,
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(out)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; output:\n${out.slice(-3000)}`);
        if (child.exitCode !== null) throw new Error(`process exited (${child.exitCode}); output:\n${out.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    exit: () => exited,
  };
}

/** Runs an entrypoint to completion; returns its exit code and output. */
export async function runEntry(
  entry: string,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
  as: RunAs = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...nodeArgs(entry, as), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}

/** Calls `fn` every `everyMs` until it gives a value; a call that spawns a process deserves a longer pause than a query. */
export async function poll<T>(fn: () => Promise<T | undefined>, timeoutMs: number, what: string, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
