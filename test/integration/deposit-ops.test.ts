// The operator's side of deposits, through the ops CLI as a process against
// the real database: screening deny|allow, deposit release|reject of a
// FLAGGED deposit (credited once, or never), and deposit rescan, which a
// running chain-worker performs: a transfer the scanner missed is recorded
// exactly once, however often it is rescanned.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScanNetwork } from '../../src/application/deposits/scan-network.js';
import { uniqueCall, useTestApi } from '../support/harness.js';
import { opsEnv, runEntry } from '../support/processes.js';
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
  });

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
  });
});

