// In production the api's public port serves /v2 and /healthz only; /readyz
// and /metrics move to the admin port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { call, createWorkspace, startTestApi, testConfig, type TestApi } from '../support/harness.js';

let db: TestDatabase;
let api: TestApi;
beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi({ ...testConfig(db.url), adminPort: 0 });
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe('admin port', () => {
  it('serves /v2 and /healthz on the public port, and nothing else', async () => {
    const ws = await createWorkspace(api);
    expect((await call(api.baseUrl, ws.testKey, { path: '/v2/chains' })).status).toBe(200);
    expect((await fetch(`${api.baseUrl}/healthz`)).status).toBe(200);
    for (const path of ['/metrics', '/readyz']) {
      const res = await fetch(`${api.baseUrl}${path}`);
      expect([res.status, ((await res.json()) as { code: string }).code], path).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('serves /readyz, /metrics and /healthz on the admin port, and no /v2', async () => {
    const admin = `http://127.0.0.1:${api.adminPort}`;
    expect(api.adminPort).not.toBe(api.port);
    expect(await (await fetch(`${admin}/readyz`)).json()).toEqual({ status: 'ready' });
    const metrics = await fetch(`${admin}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('http_request_duration_seconds');
    expect((await fetch(`${admin}/healthz`)).status).toBe(200);
    expect((await fetch(`${admin}/v2/chains`)).status).toBe(404);
  });
});
