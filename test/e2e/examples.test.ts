// The examples of examples/, run as an integrator runs them against `npm
// start`: a real sandbox in a temporary DATA_DIR with free ports, and the
// workspace it makes itself (DATA_DIR/workspace.json). The webhook
// receiver is registered with register.ts and gets the sandbox's real
// deliveries while deposit-to-withdrawal.ts takes a faucet deposit to a
// confirmed withdrawal; then a redelivery by the service, the same event
// under another delivery id, a replayed request, a stale and a forged one;
// at the end, register.ts --remove takes the endpoint away.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WalletClient, signWebhook, type WebhookDelivery } from '../../src/sdk/index.js';
import { removeDataDir } from '../support/data-dir.js';
import { freePort, freePortBlock } from '../support/free-port.js';
import { poll, runEntry, spawnEntry, TSX, type Spawned } from '../support/processes.js';

let dataDir: string;
let env: NodeJS.ProcessEnv;
let sandbox: Spawned | undefined;
let receiver: Spawned | undefined;
let client: WalletClient;
let receiverUrl: string;
let secret: string;

/** Runs an example to its end, as `node --import tsx <file> <args>` from the repository. */
async function runExample(file: string, extra: NodeJS.ProcessEnv = {}, args: string[] = []) {
  const child = spawn(process.execPath, [...TSX, file, ...args], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = await once(child, 'exit');
  return { code: code as number | null, stdout, stderr };
}

async function stop(p: Spawned | undefined): Promise<void> {
  if (p && p.child.exitCode === null) {
    p.child.kill('SIGTERM');
    await p.exit();
  }
}

/** POSTs a delivery to the receiver as the service would, with the given headers. */
const deliver = (body: string, headers: Record<string, string>) =>
  fetch(receiverUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

const signed = (body: string, deliveryId: string, timestamp = Math.floor(Date.now() / 1000)) => ({
  'x-service-delivery': deliveryId,
  'x-service-timestamp': String(timestamp),
  'x-service-signature': signWebhook({ secret, timestamp, rawBody: body }),
});

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-e2e-examples-'));
  const port = await freePortBlock(6);
  const { DATABASE_URL: _u, EMBEDDED_PG_PORT: _p, ...clean } = process.env;
  env = { ...clean, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'loopback' };
  sandbox = spawnEntry('src/bootstrap/start.ts', env);
  await sandbox.waitFor(/API base URL:\s+http:\/\/127\.0\.0\.1:\d+\/v2/, 120_000);
  await sandbox.waitFor(/workspace: .*made now/, 30_000);
  const ws = JSON.parse(readFileSync(join(dataDir, 'workspace.json'), 'utf8')) as { test_key: { key_id: string; secret: string } };
  client = new WalletClient({ baseUrl: `http://127.0.0.1:${port}/v2`, keyId: ws.test_key.key_id, secret: ws.test_key.secret });
  receiverUrl = `http://127.0.0.1:${await freePort()}/webhooks`;
}, 180_000);

afterAll(async () => {
  await stop(receiver);
  await stop(sandbox);
  removeDataDir(dataDir);
});

describe('examples against npm start', () => {
  it('type-check as they are', async () => {
    const checked = await runEntry('node_modules/typescript/bin/tsc', process.env, ['-p', 'examples/tsconfig.json']);
    expect(checked.stdout).toBe('');
    expect(checked.code).toBe(0);
  }, 120_000);

  it('register.ts makes the receiver an endpoint for every event and prints its secret; run again it rotates the secret of the same endpoint', async () => {
    const first = await runExample('examples/webhook-receiver/register.ts', {}, [receiverUrl]);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^endpoint [0-9a-f-]{36} for http:\/\/127\.0\.0\.1:\d+\/webhooks: created for every event\n$/);
    const again = await runExample('examples/webhook-receiver/register.ts', {}, [receiverUrl]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('secret rotated');
    secret = /^WEBHOOK_SECRET=(\S+)\n$/.exec(again.stdout)![1]!;
    expect(secret).not.toBe(/^WEBHOOK_SECRET=(\S+)\n$/.exec(first.stdout)![1]);
    const endpoints = await client.webhookEndpoints.list().toArray();
    expect(endpoints.filter((e) => e.url === receiverUrl)).toEqual([expect.objectContaining({ is_active: true, events: expect.arrayContaining(['DEPOSIT_CONFIRMED', 'WITHDRAWAL_CONFIRMED']) })]);

    receiver = spawnEntry('examples/webhook-receiver/server.ts', { ...env, WEBHOOK_SECRET: secret, RECEIVER_PORT: new URL(receiverUrl).port });
    await receiver.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+\/webhooks/, 30_000);
  }, 120_000);

  it('deposit-to-withdrawal.ts goes from a faucet deposit to a CONFIRMED withdrawal, one line a step, and the receiver applies each event once', async () => {
    const run = await runExample('examples/deposit-to-withdrawal.ts');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    const uuid = '([0-9a-f-]{36})';
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(new RegExp(`^customer ${uuid} \\(external_ref example-`));
    expect(lines[1]).toMatch(new RegExp(`^wallet ${uuid} on ETH_TESTNET: 0x[0-9a-fA-F]{40}$`));
    expect(lines[2]).toMatch(new RegExp(`^faucet drip ${uuid}: 100.000000 USDT_ETH QUEUED$`));
    expect(lines[3]).toMatch(/: COMPLETED on chain$/);
    const depositId = new RegExp(`^deposit ${uuid} of 100.000000 USDT_ETH: credited 97.000000 after a fee of 3.000000$`).exec(lines[4]!)![1]!;
    expect(lines[5]).toMatch(new RegExp(`^deposit ${depositId}: SWEPT into the treasury at `));
    expect(lines[6]).toBe('balance USDT_ETH on ETH_TESTNET: available 97.000000, locked 0.000000');
    const withdrawalId = new RegExp(`^withdrawal ${uuid} of 20.000000 USDT_ETH to 0x[0-9a-fA-F]{40}: PENDING, fee 5.000000, net 15.000000$`).exec(lines[7]!)![1]!;
    expect(lines[8]).toMatch(new RegExp(`^withdrawal ${withdrawalId}: CONFIRMED in 0x[0-9a-f]{64}$`));
    expect(lines[9]).toBe('balance USDT_ETH on ETH_TESTNET: available 77.000000, locked 0.000000');

    const withdrawal = await client.getWithdrawal(withdrawalId);
    expect(withdrawal).toMatchObject({ status: 'CONFIRMED', amount: '20.000000', fee_record: { fee_amount: '5.000000', net_amount: '15.000000' } });

    for (const applied of [`applied DEPOSIT_CONFIRMED deposit ${depositId} 100.000000 USDT_ETH CONFIRMED`, `applied DEPOSIT_SWEPT deposit ${depositId}`, `applied WITHDRAWAL_CONFIRMED withdrawal ${withdrawalId} 20.000000 USDT_ETH CONFIRMED`]) {
      await poll(async () => (receiver!.output().includes(applied) ? true : undefined), 30_000, applied);
    }
    expect(receiver!.output()).not.toMatch(/refused|already applied|duplicate/);
  }, 420_000);

  it('the receiver acknowledges a redelivery and a replayed request without applying them again, skips the same event under a new delivery id, and refuses stale and forged ones', async () => {
    const [endpoint] = (await client.webhookEndpoints.list().toArray()).filter((e) => e.url === receiverUrl);
    const deliveries = await client.webhookEndpoints.listDeliveries(endpoint!.id, { status: 'DELIVERED' }).toArray();
    const confirmed = deliveries.find((d) => d.event === 'WITHDRAWAL_CONFIRMED') as WebhookDelivery;
    expect(confirmed).toMatchObject({ response_status: 202, attempts: 1 });
    const applyLines = () => receiver!.output().split('\n').filter((l) => l.startsWith('applied WITHDRAWAL_CONFIRMED')).length;
    expect(applyLines()).toBe(1);

    // The service sends the same delivery (same id) once more.
    await client.redeliverWebhookDelivery(endpoint!.id, confirmed.id);
    await poll(async () => (receiver!.output().includes(`duplicate delivery ${confirmed.id} (WITHDRAWAL_CONFIRMED): ignored`) ? true : undefined), 30_000, 'the redelivery');
    const redelivered = await poll(async () => {
      const d = (await client.listWebhookDeliveries(endpoint!.id)).data.find((x) => x.id === confirmed.id);
      return d && d.status === 'DELIVERED' && d.response_status === 200 ? d : undefined;
    }, 30_000, 'the redelivery in the log');
    expect(redelivered.attempts).toBeGreaterThan(confirmed.attempts);

    // A captured request sent again as it was: same delivery id, same signature, still fresh.
    const headers = signed(confirmed.payload, confirmed.id);
    const replay = await deliver(confirmed.payload, headers);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ duplicate: true });

    // The same event about the same withdrawal under another delivery id.
    const other = await deliver(confirmed.payload, signed(confirmed.payload, '11111111-2222-4333-8444-555555555555'));
    expect(other.status).toBe(202);
    await poll(async () => (receiver!.output().includes(`already applied WITHDRAWAL_CONFIRMED withdrawal`) ? true : undefined), 10_000, 'the skip');

    const stale = await deliver(confirmed.payload, signed(confirmed.payload, '66666666-7777-4888-8999-000000000000', Math.floor(Date.now() / 1000) - 600));
    expect(stale.status).toBe(400);
    expect(await stale.json()).toEqual({ error: 'TIMESTAMP_OUT_OF_TOLERANCE' });

    const forged = await deliver(confirmed.payload.replace('"20.000000"', '"2000.000000"'), headers);
    expect(forged.status).toBe(400);
    expect(await forged.json()).toEqual({ error: 'SIGNATURE_MISMATCH' });

    expect(applyLines()).toBe(1);
    expect(receiver!.output()).toContain('refused: TIMESTAMP_OUT_OF_TOLERANCE');
  }, 120_000);

  it('register.ts --remove takes the receiver\'s endpoint away (and says so when there is none)', async () => {
    const removed = await runExample('examples/webhook-receiver/register.ts', {}, ['--remove', receiverUrl]);
    expect([removed.code, removed.stdout]).toEqual([0, '']);
    expect(removed.stderr).toMatch(/^endpoint [0-9a-f-]{36} for http:\/\/127\.0\.0\.1:\d+\/webhooks: removed\n$/);
    expect((await client.webhookEndpoints.list().toArray()).filter((e) => e.url === receiverUrl)).toEqual([]);
    const again = await runExample('examples/webhook-receiver/register.ts', {}, ['--remove', receiverUrl]);
    expect([again.code, again.stderr]).toEqual([0, `no endpoint for ${receiverUrl}\n`]);
  }, 120_000);
});
