// A client that sends its request slowly is cut off with 408 once the
// request timeout passes, instead of holding a connection for minutes.
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startTestApi, testConfig, type TestApi } from '../support/harness.js';

let db: TestDatabase;
let api: TestApi;
beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi({ ...testConfig(db.url), httpTimeouts: { requestMs: 1000, headersMs: 600, checkEveryMs: 100 } });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

async function stall(request: string): Promise<{ answer: string; ms: number }> {
  const socket = connect(api.port, '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString()));
  const started = Date.now();
  const closed = once(socket, 'close');
  socket.write(request);
  await Promise.race([closed, new Promise((r) => setTimeout(r, 10_000))]);
  socket.destroy();
  return { answer, ms: Date.now() - started };
}

describe('slow clients', () => {
  it('answers 408 with the JSON error body to a body that never finishes, and closes the connection', async () => {
    const { answer, ms } = await stall('POST /v2/customers HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.split('\r\n\r\n')[1]!)).toEqual({ error: expect.any(String), code: 'VALIDATION_ERROR' });
    expect(ms).toBeLessThan(5000);
  });

  it('answers 408 to headers that never finish', async () => {
    const { answer, ms } = await stall('GET /v2/chains HTTP/1.1\r\nHost: x\r\nX-Service-Key: sk_test_');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(ms).toBeLessThan(5000);
  });
});
