// SIGTERM (issue 4): stop taking work, finish what is in flight, exit 0 within
// 10 s — even while clients hold connections that never finish a request.
import { mkdtempSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { spawnEntry } from '../support/processes.js';
import { removeDataDir } from '../support/data-dir.js';

let db: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-shutdown-'));
});
afterAll(async () => {
  await db?.drop();
  removeDataDir(dataDir);
});

async function stalledClients(port: number): Promise<Socket[]> {
  const open = async (bytes: string) => {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => {});
    await once(s, 'connect');
    if (bytes) s.write(bytes);
    return s;
  };
  return Promise.all([
    open(''), // connected, sent nothing
    open('GET /healthz HTTP/1.1\r\nHost: x\r\n'), // headers never finished
    open('POST /v2/chains HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":'), // body never finished
  ]);
}

describe('SIGTERM with stalled clients connected', () => {
  for (const [entry, name, portOffset] of [
    ['src/bootstrap/api.ts', 'api', 0],
    ['src/bootstrap/chain-worker.ts', 'chain-worker', 1],
  ] as const) {
    it(`${name} exits 0 within 10 s`, async () => {
      const port = await freePort();
      const { DATABASE_URL: _u, ...rest } = process.env;
      const proc = spawnEntry(entry, {
        ...rest,
        DATABASE_URL: db.url,
        DATA_DIR: dataDir,
        PORT: String(port - portOffset),
        CHAIN_WORKER_PORT: String(port),
        LOG_LEVEL: 'info',
      });
      await proc.waitFor(/listening/, 60_000);
      const sockets = await stalledClients(port);
      const started = Date.now();
      proc.child.kill('SIGTERM');
      const { code } = await proc.exit();
      sockets.forEach((s) => s.destroy());
      expect({ code, output: code === 0 ? '' : proc.output().slice(-2000) }).toEqual({ code: 0, output: '' });
      expect(Date.now() - started).toBeLessThan(10_000);
    }, 90_000);
  }
});
