// `npm start` with WEBHOOK_ALLOW_PRIVATE=true, end to end: a local receiver
// registered with a workspace key gets a correctly signed
// WITHDRAWAL_POLICY_CHANGED after `ops policy set`, verified with the SDK's
// verifyWebhook, through the sandbox's own dispatcher process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/sdk/webhooks.js';
import { freePortBlock } from '../support/free-port.js';
import { call } from '../support/harness.js';
import { poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { checkedEnvelope, startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { removeDataDir } from '../support/data-dir.js';

let dataDir: string;
let env: NodeJS.ProcessEnv;
let port: number;
let sandbox: Spawned | undefined;
let receiver: Receiver;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-e2e-webhooks-'));
  port = await freePortBlock(6);
  const { DATABASE_URL: _u, EMBEDDED_PG_PORT: _p, ...clean } = process.env;
  env = { ...clean, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true' };
  receiver = await startReceiver(() => 200);
  sandbox = spawnEntry('src/bootstrap/start.ts', env);
  await sandbox.waitFor(/API base URL:\s+http:\/\/127\.0\.0\.1:\d+\/v2/, 90_000);
}, 120_000);

afterAll(async () => {
  if (sandbox && sandbox.child.exitCode === null) {
    sandbox.child.kill('SIGTERM');
    await sandbox.exit();
  }
  await receiver?.close();
  removeDataDir(dataDir);
});

describe('npm start: webhooks to a local receiver', () => {
  it('delivers a signed WITHDRAWAL_POLICY_CHANGED after ops policy set, which verifyWebhook accepts', async () => {
    const created = await runEntry('src/bootstrap/ops.ts', env, ['workspace', 'create', '--name', 'hooks', '--json']);
    expect(created.code).toBe(0);
    const ws = JSON.parse(created.stdout) as { workspace_id: string; test_key: { key_id: string; secret: string } };
    const key = { keyId: ws.test_key.key_id, secret: ws.test_key.secret };
    const endpoint = await call(`http://127.0.0.1:${port}`, key, {
      method: 'POST',
      path: '/v2/webhooks',
      body: JSON.stringify({ url: receiver.url, events: ['WITHDRAWAL_POLICY_CHANGED'] }),
    });
    expect(endpoint.status).toBe(201);

    const set = await runEntry('src/bootstrap/ops.ts', env, ['policy', 'set', '--workspace', ws.workspace_id, '--daily-limit', '5000', '--json']);
    expect(set.code).toBe(0);
    const [got] = await poll(async () => (receiver.received.length > 0 ? receiver.received : undefined), 20_000, 'the delivery');
    const verified = verifyWebhook({ rawBody: got!.rawBody, headers: got!.headers as Record<string, string>, secret: endpoint.body.secret as string });
    expect(verified.event).toBe('WITHDRAWAL_POLICY_CHANGED');
    expect(verified.deliveryId).toBe(got!.headers['x-service-delivery']);
    expect(checkedEnvelope(got!).data).toMatchObject({ workspace_id: ws.workspace_id, network: 'MAINNET', changed: ['daily_limit'], policy: { daily_limit: '5000' } });

    const log = await poll(async () => {
      const res = await call(`http://127.0.0.1:${port}`, key, { path: `/v2/webhooks/${endpoint.body.id}/deliveries` });
      return res.body.data?.[0]?.status === 'DELIVERED' ? res.body : undefined;
    }, 10_000, 'the log entry');
    expect(log.data[0]).toMatchObject({ id: verified.deliveryId, attempts: 1, response_status: 200 });
  });
});
