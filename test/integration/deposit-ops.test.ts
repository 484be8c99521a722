// The operator's side of deposits, through the ops CLI as a process against
// the real database: screening deny|allow, deposit release|reject of a
// FLAGGED deposit (credited once, or never), and deposit rescan, which a
// running chain-worker performs: a transfer the scanner missed is recorded
// exactly once, however often it is rescanned.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScanNetwork } from '../../src/application/deposits/scan-network.js';
import { startChainWorker } from '../../src/bootstrap/chain-worker.js';
import type { RunningWorker } from '../../src/bootstrap/worker-process.js';
import { testConfig, uniqueCall, useTestApi } from '../support/harness.js';
import { opsEnv, poll, runEntry } from '../support/processes.js';
import { ScriptedChain } from '../support/scripted-chain.js';

const t = useTestApi({ workspace: 'deposit-ops', env: { ETH_TESTNET_CONFIRMATIONS: '2' } });
const SENDER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const OTHER = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';
let chain: ScriptedChain;
let n = 0;
const txid = () => `0x${(0xd00 + ++n).toString(16).padStart(64, '0')}`;
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);

async function ops(...args: string[]): Promise<{ code: number | null; json: Record<string, unknown>; stderr: string }> {
  const res = await runEntry('src/bootstrap/ops.ts', opsEnv(t.db.url, { DATA_DIR: mkdtempSync(join(tmpdir(), 'wallet-ops-')) }), [...args, '--json']);
  return { code: res.code, json: JSON.parse(res.stdout) as Record<string, unknown>, stderr: res.stderr };
}

async function wallet(): Promise<{ id: string; address: string }> {
  const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' });
  return { id: res.body.id as string, address: res.body.address as string };
}

const depositOf = async (walletId: string) =>
  (await sql<{ id: string; status: string }>(`select id, status from deposits where wallet_id = ?`, [walletId]))[0];

async function scanAll(): Promise<void> {
  const scan = t.api.infra.container.resolve(ScanNetwork);
  for (let i = 0; i < 10; i++) {
    const o = await scan.step(chain, { owner: 'test', leaseSeconds: 30, batchBlocks: 50, keepBlocks: 64, startBlock: 0n });
    if (o.kind === 'idle') return;
  }
}

beforeAll(() => {
  chain = new ScriptedChain('ETH_TESTNET');
});

describe('ops screening and deposit review', () => {
  it('denies a sender on every chain its address fits, in any case, and allows it again', async () => {
    const denied = await ops('screening', 'deny', '--address', OTHER.toLowerCase());
    expect(denied.code).toBe(0);
    expect(denied.json).toEqual({ entries: [{ chain: 'BSC', address: OTHER }, { chain: 'ETH', address: OTHER }], changed: true });
    expect((await ops('screening', 'deny', '--address', OTHER)).json.changed).toBe(false);
    expect((await ops('screening', 'allow', '--address', OTHER)).json.changed).toBe(true);
    const bad = await ops('screening', 'deny', '--address', 'not-an-address');
    expect(bad.code).not.toBe(0);
    expect(bad.json).toMatchObject({ code: 'VALIDATION_ERROR' });
  }, 90_000); // each ops call is a process of its own: seconds each on a busy 2-core machine

  it('releases one FLAGGED deposit (credited once) and rejects another (never credited)', async () => {
    expect((await ops('screening', 'deny', '--address', SENDER)).code).toBe(0);
    const [a, b] = [await wallet(), await wallet()];
    chain.mine([
      { txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: SENDER, to: a.address, amount: 100_000_000n },
      { txid: txid(), logIndex: 0, asset: 'USDT_ETH', from: SENDER, to: b.address, amount: 40_000_000n },
    ]);
    chain.mine();
    await scanAll();
    const [da, db] = [(await depositOf(a.id))!, (await depositOf(b.id))!];
    expect([da.status, db.status]).toEqual(['FLAGGED', 'FLAGGED']);

    const released = await ops('deposit', 'release', '--id', da.id);
    expect(released.code).toBe(0);
    expect(released.json).toMatchObject({ id: da.id, status: 'CONFIRMED', fee_record: { fee_amount: '3.000000', net_amount: '97.000000' } });
    const again = await ops('deposit', 'release', '--id', da.id);
    expect(again.code).toBe(2);
    expect(again.json).toMatchObject({ code: 'CONFLICT' });

    const rejected = await ops('deposit', 'reject', '--id', db.id);
    expect(rejected.json).toMatchObject({ id: db.id, status: 'REJECTED', fee_record: null });
    expect((await ops('deposit', 'release', '--id', db.id)).json).toMatchObject({ code: 'CONFLICT' });
    expect((await ops('deposit', 'reject', '--id', '00000000-0000-4000-8000-000000000000')).json).toMatchObject({ code: 'NOT_FOUND' });

    const balances = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', '/v2/balances?asset=USDT_ETH');
    expect(balances.body.data).toEqual([{ chain: 'ETH_TESTNET', asset: 'USDT_ETH', available: '97.000000', locked: '0.000000', total: '97.000000' }]);
    const events = await sql<{ event: string }>(`select event from webhook_events where workspace_id = ? order by created_at, id`, [t.ws.workspaceId]);
    expect(events.map((e) => e.event).filter((e) => e !== 'DEPOSIT_DETECTED')).toEqual(['DEPOSIT_FLAGGED', 'DEPOSIT_FLAGGED', 'DEPOSIT_CONFIRMED', 'DEPOSIT_REJECTED']);
    expect((await ops('screening', 'allow', '--address', SENDER)).code).toBe(0);
  }, 90_000); // each ops call is a process of its own: seconds each on a busy 2-core machine
});

describe('ops deposit rescan', () => {
  let worker: RunningWorker;
  beforeAll(async () => {
    // The review tests' scanner lets its lease go, as a stopped chain-worker does.
    await sql(`update chain_cursors set lease_owner = null, lease_until = null`);
    worker = await startChainWorker(testConfig(t.db.url, { ETH_TESTNET_CONFIRMATIONS: '2' }), {
      ports: [chain],
      scan: { pollMs: 50, startBlocks: { ETH_TESTNET: 0n } },
    });
  });
  afterAll(() => worker?.close());

  it('records a transfer the scanner missed exactly once, however often it is rescanned', async () => {
    const w = await wallet();
    const missed = txid();
    // The node did not return this transfer when its block was read (a flaky provider's gap).
    const block = chain.mine();
    chain.mine();
    await poll(async () => ((await sql<{ n: string }>(`select next_block::text as n from chain_cursors where network = 'ETH_TESTNET'`))[0]?.n === String(block.number + 2n) ? true : undefined), 10_000, 'scanner past the block');
    chain.addToBlock(block.number, { txid: missed, logIndex: 0, asset: 'USDT_ETH', from: SENDER, to: w.address, amount: 60_000_000n });
    expect(await depositOf(w.id)).toBeUndefined();

    const first = await ops('deposit', 'rescan', '--chain', 'ETH_TESTNET', '--txid', missed);
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ chain: 'ETH_TESTNET', txid: missed, transaction: 'success', found: 1, recorded: 1 });
    const second = await ops('deposit', 'rescan', '--chain', 'ETH_TESTNET', '--txid', missed.toUpperCase().replace('0X', '0x'));
    expect(second.json).toMatchObject({ found: 1, recorded: 0 });
    const rows = await sql<{ n: string }>(`select count(*)::text as n from deposits where txid = ?`, [missed]);
    expect(rows[0]!.n).toBe('1');
    // The scanner then confirms and credits it like any other.
    chain.mine();
    await poll(async () => ((await depositOf(w.id))?.status === 'CONFIRMED' ? true : undefined), 10_000, 'rescanned deposit credited');
  });

  it('tells a transaction the node does not have from one with nothing monitored', async () => {
    const unknown = await ops('deposit', 'rescan', '--chain', 'ETH_TESTNET', '--txid', txid());
    expect(unknown.code).toBe(0);
    expect(unknown.json).toMatchObject({ transaction: 'not_included', found: 0, recorded: 0 });
  });

  it('refuses at once, queuing nothing, a network no chain-worker scans', async () => {
    const jobs = async () => (await sql<{ n: string }>(`select count(*)::text as n from pgboss.job where name = 'deposit.rescan'`))[0]!.n;
    const before = await jobs();
    const started = Date.now();
    const res = await ops('deposit', 'rescan', '--chain', 'BSC_TESTNET', '--txid', txid());
    expect(res.code).toBe(1);
    expect(res.json).toMatchObject({ ok: false, error: expect.stringMatching(/^no chain-worker is scanning BSC_TESTNET/) });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await jobs()).toBe(before);
  });

  it('refuses a malformed txid or network in one line and queues nothing', async () => {
    const jobs = async () => (await sql<{ n: string }>(`select count(*)::text as n from pgboss.job where name = 'deposit.rescan'`))[0]!.n;
    const before = await jobs();
    const bad = await ops('deposit', 'rescan', '--chain', 'ETH_TESTNET', '--txid', '0x1234');
    expect(bad.code).toBe(2);
    expect(bad.json).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect((await ops('deposit', 'rescan', '--chain', 'ETHER', '--txid', txid())).json).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await jobs()).toBe(before);
  });
});
