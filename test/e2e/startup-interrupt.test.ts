// Ctrl-C while `npm start` is still starting (issue 30's review): the supervisor
// stops what it had started (the database, the local chains) and exits 0,
// instead of dying with anvil and the TRON stand-in left running on their ports.
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePortBlock } from '../support/free-port.js';
import { poll, spawnEntry } from '../support/processes.js';
import { removeDataDir } from '../support/data-dir.js';

const dataDir = mkdtempSync(join(tmpdir(), 'wallet-interrupt-'));
afterAll(() => removeDataDir(dataDir));

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

describe('npm start interrupted while starting', () => {
  it('stops the local chains and the database it had started, and exits 0', async () => {
    const port = await freePortBlock(7);
    const { DATABASE_URL: _d, EMBEDDED_PG_PORT: _p, ...clean } = process.env;
    const sandbox = spawnEntry('src/bootstrap/start.ts', { ...clean, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });
    // The database is up and migrated: the local chains start next.
    await sandbox.waitFor(/migrations applied/, 90_000);
    sandbox.child.kill('SIGINT');
    const { code } = await sandbox.exit();
    expect(code).toBe(0);
    // anvil (ETH, BSC) and the TRON stand-in listen on PORT+4..6 while they run.
    await poll(async () => ((await Promise.all([4, 5, 6].map((o) => listening(port + o)))).every((l) => !l) ? true : undefined), 10_000, 'the local chains stopped');
  }, 120_000);
});
