// TRON deposits through the scanner (ScanNetwork) on the TRON adapter and the
// stand-in, with the real database: a USDT_TRON transfer to a TRON wallet is
// detected, rolled back before its confirmations (FAILED, never credited),
// and a new one is confirmed and credited once with the fee engine's net.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronChainPort } from '../../src/adapters/chains/tron-chain.js';
import { ScanNetwork, type ScanOptions } from '../../src/application/deposits/scan-network.js';
import { uniqueCall, useTestApi } from '../support/harness.js';
import { startTestTron, type TestTron } from '../support/tron-chain.js';

const t = useTestApi({ workspace: 'tron-deposits', env: { TRON_TESTNET_CONFIRMATIONS: '2' } });
const opts: ScanOptions = { owner: 'tron-test', leaseSeconds: 30, batchBlocks: 50, keepBlocks: 64, startBlock: 0n };

let tron: TestTron;
let port: TronChainPort;
let scan: ScanNetwork;

const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
const depositsOf = (walletId: string) =>
  sql<{ status: string; txid: string; amount: string; net_amount: string | null }>(
    `select status, txid, amount::text, net_amount::text from deposits where wallet_id = ? order by detected_at`,
    [walletId],
  );

async function catchUp() {
  for (let i = 0; i < 20; i++) if ((await scan.step(port, opts)).kind === 'idle') return;
  throw new Error('scanner did not catch up');
}

beforeAll(async () => {
  tron = await startTestTron();
  port = new TronChainPort({ network: 'TRON_TESTNET', urls: [tron.standin.url], contracts: { USDT_TRON: tron.token } });
  scan = t.api.infra.container.resolve(ScanNetwork);
}, 60_000);

afterAll(async () => {
  await tron?.stop();
});

describe('TRON deposits on the stand-in', () => {
  it('fails a rolled-back deposit and credits a confirmed one once', async () => {
    const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON' });
    expect(res.status).toBe(201);
    const wallet = { id: res.body.id as string, address: res.body.address as string };

    const first = await tron.sendToken(wallet.address, 30_000_000n);
    await tron.mine();
    await catchUp();
    expect(await depositsOf(wallet.id)).toEqual([{ status: 'DETECTED', txid: first, amount: '30000000', net_amount: null }]);
    await tron.standin.rollback(1);
    await tron.mine(2);
    await catchUp();
    expect((await depositsOf(wallet.id)).map((d) => d.status)).toEqual(['FAILED']);

    const second = await tron.sendToken(wallet.address, 25_000_000n);
    await tron.mine(3);
    await catchUp();
    const rows = await depositsOf(wallet.id);
    expect(rows[1]).toEqual({ status: 'CONFIRMED', txid: second, amount: '25000000', net_amount: '24000000' });
    const balance = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', '/v2/balances?asset=USDT_TRON');
    expect((balance.body.data as { available: string }[])[0]?.available).toBe('24.000000');
    const credits = await sql<{ n: string }>(`select count(*)::text as n from journal_entries where reference like 'deposit:%:credit' and reference in (select 'deposit:' || id || ':credit' from deposits where wallet_id = ?)`, [wallet.id]);
    expect(credits[0]!.n).toBe('1');
  });
});
