// An interrupted `npm test` (Ctrl-C) leaves nothing behind: a run of its own
// (test/fixtures/interrupt), its embedded PostgreSQL started and a DATA_DIR
// made, gets SIGINT in its process group as a terminal's Ctrl-C sends it;
// its temporary directory and its server are then gone.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { poll } from '../support/processes.js';

const base = mkdtempSync(join(tmpdir(), 'wallet-interrupt-'));
chmodSync(base, 0o755); // as root, the run's server runs as the postgres user, who must pass through it
afterAll(() => rmSync(base, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm test interrupted', () => {
  it('removes its temporary databases and directories after Ctrl-C', async () => {
    // A terminal's environment: none of this run's own (vitest's variables would make the run think it is a worker).
    const own = new Set(['TEST', 'PROD', 'DEV', 'SSR', 'MODE', 'BASE_URL', 'FORCE_TTY', 'DATABASE_URL', 'TMPDIR']);
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && !own.has(k)));
    const run = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/interrupt/vitest.config.ts'], {
      env: { ...env, TMPDIR: base },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    run.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    run.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const runDir = await poll(async () => /READY (\S+)/.exec(out)?.[1], 90_000, 'the run to start').catch((err: Error) => {
        throw new Error(`${err.message}; its output:\n${out}`);
      });
      expect(runDir.startsWith(`${base}/wallet-test-run-`)).toBe(true);
      const server = readdirSync(runDir).find((d) => d.startsWith('wallet-test-pg-'))!;
      const postmaster = Number(readFileSync(join(runDir, server, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(alive(postmaster)).toBe(true);
      expect(readdirSync(runDir).some((d) => d.startsWith('wallet-e2e-'))).toBe(true);

      process.kill(-run.pid!, 'SIGINT');
      await poll(async () => (existsSync(runDir) ? undefined : true), 60_000, `${runDir} to be removed`);
      expect(readdirSync(base).filter((d) => d.startsWith('wallet-'))).toEqual([]);
      expect(alive(postmaster)).toBe(false);
    } finally {
      try {
        process.kill(-run.pid!, 'SIGKILL');
      } catch {
        /* ended */
      }
    }
  }, 150_000);
});
