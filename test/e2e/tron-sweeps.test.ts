// TRON sweeps end to end on the sandbox's stand-in, which burns TRX for
// bandwidth, energy and account creation as java-tron does, with the
// chain-worker as an OS process (issue 15's acceptance on TRON): a USDT_TRON
// deposit to an address never activated is topped up by the gas tank (the
// activation at the tank's cost) and swept to the treasury, read from the
// node; a top-up whose transaction never reached the node expires and is
// signed anew, and only the new one reaches the chain; an empty gas tank
// leaves sweeps waiting until it is refilled; every sun burnt is booked to
// the service's GAS account in TRX, and the ledger check reports zero
// differences.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { TronChainPort } from '../../src/adapters/chains/tron-chain.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { createWorkspace, startTestApi, testConfig, uniqueCall, TEST_SEED, type TestApi } from '../support/harness.js';
import { opsEnv, poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';
import { startTestTron, type TestTron } from '../support/tron-chain.js';

const TRX = 1_000_000n;
let db: TestDatabase;
let api: TestApi;
let ws: CreatedWorkspace;
let tron: TestTron;
let proxy: RpcProxy;
let node: TronChainPort;
let worker: Spawned | undefined;
let workerPort = 0;
let treasury: string;
let gasTank: string;
let mining: NodeJS.Timeout | undefined;

const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T[]>(text, params);

/** A block every 250 ms, like a live chain, until paused. */
function keepMining(on: boolean): void {
  if (mining) clearInterval(mining);
  mining = on ? setInterval(() => void tron.mine().catch(() => undefined), 250) : undefined;
}

async function wallet(): Promise<{ id: string; address: string }> {
  const res = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON' });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, address: res.body.address as string };
}

const depositsOf = (walletId: string) =>
  sql<{ id: string; status: string; sweep_id: string | null }>(`select id, status, sweep_id from deposits where wallet_id = ? order by detected_at`, [walletId]);
const transfersOf = (address: string) =>
  sql<{ id: string; kind: string; asset: string; status: string; amount: string; included_txid: string | null; fee_paid: string | null; fee_cap: string | null }>(
    `select id, kind, asset, status, amount::text, included_txid, fee_paid::text, fee_cap::text from outgoing_transfers
     where from_address = ? or to_address = ? order by requested_at`,
    [address, address],
  );
const attemptsOf = (transferId: string) => sql<{ txid: string }>(`select txid from transfer_attempts where transfer_id = ? order by seq`, [transferId]);
const allSwept = async (walletId: string, count: number) => {
  const rows = await depositsOf(walletId);
  return rows.length === count && rows.every((r) => r.status === 'SWEPT') ? rows : undefined;
};
const metrics = async () => (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text();

beforeAll(async () => {
  tron = await startTestTron();
  proxy = await startRpcProxy(tron.standin.url);
  node = new TronChainPort({ network: 'TRON_TESTNET', urls: [tron.standin.url], contracts: { USDT_TRON: tron.token } });
  db = await createTestDatabase();
  const chainEnv = { TRON_TESTNET_CONFIRMATIONS: '2', TRON_TESTNET_USDT_TRON_CONTRACT: tron.token };
  api = await startTestApi(testConfig(db.url, chainEnv));
  ws = await createWorkspace(api, 'tron-sweeps-e2e');
  const signer = new LocalHdSigner(TEST_SEED);
  treasury = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'treasury'));
  gasTank = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'gasTank'));
  await tron.tronWeb.trx.sendTrx(gasTank, Number(500n * TRX));
  await tron.mine();
  keepMining(true);
  workerPort = await freePort();
  worker = spawnEntry(
    'src/bootstrap/chain-worker.ts',
    opsEnv(db.url, {
      ...chainEnv,
      LOG_LEVEL: 'info',
      MASTER_SEED: TEST_SEED,
      CHAIN_WORKER_PORT: String(workerPort),
      TRON_TESTNET_RPC_URL: proxy.url,
      TRON_TESTNET_START_BLOCK: '0',
      SCAN_POLL_MS: '100',
      SCAN_LEASE_SECONDS: '5',
      SEND_INTERVAL_MS: '200',
    }),
  );
  await worker.waitFor(/chain-worker listening/, 30_000);
}, 120_000);

afterAll(async () => {
  keepMining(false);
  if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
  await api?.close();
  await db?.drop();
  await proxy?.close();
  await tron?.stop();
});

describe('sweeps on the TRON stand-in', () => {
  it('activates and tops up a never-activated deposit address from the gas tank, then sweeps 12 USDT_TRON to the treasury', async () => {
    const before = await node.tokenBalance('USDT_TRON', treasury);
    const tankBefore = await node.nativeBalance(gasTank);
    const w = await wallet();
    expect(await node.nativeBalance(w.address)).toBe(0n); // never activated
    await tron.sendToken(w.address, 12_000_000n);
    const [deposit] = await poll(() => allSwept(w.id, 1), 60_000, 'the deposit swept');
    expect((await node.tokenBalance('USDT_TRON', treasury)) - before).toBe(12_000_000n);
    expect(await node.tokenBalance('USDT_TRON', w.address)).toBe(0n);
    const events = await sql<{ payload: string }>(`select payload from webhook_events where event = 'DEPOSIT_SWEPT' and payload::jsonb -> 'data' ->> 'deposit_id' = ?`, [deposit!.id]);
    expect(JSON.parse(events[0]!.payload).data).toMatchObject({ deposit_id: deposit!.id, chain: 'TRON_TESTNET', asset: 'USDT_TRON', amount: '12.000000', status: 'SWEPT' });
    expect((await sql<{ status: string }>(`select status from wallets where id = ?`, [w.id]))[0]!.status).toBe('SWEPT');
    // A TRX top-up from the gas tank that paid the activation (1 TRX + 0.1 TRX), then the sweep, which burnt energy and bandwidth.
    const [topUp, sweep] = await transfersOf(w.address);
    expect(topUp).toMatchObject({ kind: 'GAS_TOPUP', asset: 'TRX', status: 'CONFIRMED', fee_paid: '1100000' });
    expect(sweep).toMatchObject({ kind: 'SWEEP', asset: 'USDT_TRON', status: 'CONFIRMED' });
    expect(BigInt(sweep!.fee_paid!)).toBeGreaterThan(0n);
    expect(BigInt(sweep!.fee_paid!)).toBeLessThanOrEqual(BigInt(sweep!.fee_cap!) + 1_000_000n);
    // What the address was sent and did not burn is still on it; the tank paid the top-up and its activation.
    expect(await node.nativeBalance(w.address)).toBe(BigInt(topUp!.amount) - BigInt(sweep!.fee_paid!));
    expect(tankBefore - (await node.nativeBalance(gasTank))).toBe(BigInt(topUp!.amount) + 1_100_000n);
    // Both burns are the service's cost, in TRX.
    const gas = await sql<{ reference: string; asset: string; workspace_id: string | null }>(
      `select reference, asset, workspace_id from journal_entries where kind = 'SWEEP_GAS' and reference in (?, ?)`,
      [`gas:transfer:${topUp!.id}`, `gas:transfer:${sweep!.id}`],
    );
    expect(gas.map((g) => [g.asset, g.workspace_id])).toEqual([
      ['TRX', null],
      ['TRX', null],
    ]);
  }, 90_000);

  it('signs a new top-up once one that never reached the node has expired past finality, and only the new one is on chain', async () => {
    proxy.failPaths.add('/wallet/broadcasttransaction');
    const w = await wallet();
    await tron.sendToken(w.address, 15_000_000n);
    const [topUp] = await poll(async () => {
      const t = await transfersOf(w.address);
      return t[0]?.status === 'SIGNED' ? t : undefined;
    }, 30_000, 'the top-up signed, its broadcasts lost');
    const [first] = await attemptsOf(topUp!.id);
    // Past its expiration (a minute) by more than the finality depth: 64 blocks three seconds apart.
    keepMining(false);
    await rpc(tron.standin.anvil.rpcUrl, 'anvil_mine', ['0x40', '0x3']);
    keepMining(true);
    await poll(async () => ((await attemptsOf(topUp!.id)).length === 2 ? true : undefined), 30_000, 'a second attempt');
    proxy.failPaths.clear();
    await poll(() => allSwept(w.id, 1), 60_000, 'swept after the new top-up');
    const attempts = await attemptsOf(topUp!.id);
    expect(attempts).toHaveLength(2);
    const [done] = await transfersOf(w.address);
    expect(done).toMatchObject({ kind: 'GAS_TOPUP', status: 'CONFIRMED', included_txid: attempts[1]!.txid });
    expect(await node.sentReceipt(first!.txid)).toBeNull();
    expect(worker!.output()).toMatch(/"resigned":1/);
  }, 120_000);

  it('with the gas tank empty, lets a TRON sweep wait with gas_tank_low; after a refill it completes by itself', async () => {
    const kept = await node.nativeBalance(gasTank);
    const tankHex = `0x${Buffer.from(tron.tronWeb.address.toHex(gasTank).slice(2), 'hex').toString('hex')}`;
    await rpc(tron.standin.anvil.rpcUrl, 'anvil_setBalance', [tankHex, '0x0']);
    const w = await wallet();
    await tron.sendToken(w.address, 20_000_000n);
    await poll(async () => ((await depositsOf(w.id))[0]?.status === 'CONFIRMED' ? true : undefined), 60_000, 'credited');
    await poll(async () => (/gas_tank_low\{network="TRON_TESTNET"[^}]*\} 1/.test(await metrics()) ? true : undefined), 20_000, 'gas_tank_low');
    expect(await transfersOf(w.address)).toEqual([]);
    await rpc(tron.standin.anvil.rpcUrl, 'anvil_setBalance', [tankHex, `0x${kept.toString(16)}`]);
    await poll(() => allSwept(w.id, 1), 60_000, 'swept after the refill');
    expect(await metrics()).toMatch(/gas_tank_low\{network="TRON_TESTNET"[^}]*\} 0/);
  }, 120_000);

  it('books every sun burnt to the service in TRX: the GAS account equals the fees on chain, and the ledger check is at zero', async () => {
    const [paid] = await sql<{ total: string }>(`select coalesce(sum(fee_paid), 0)::text as total from outgoing_transfers where network = 'TRON_TESTNET'`);
    const [gas] = await sql<{ balance: string }>(`select balance::text from ledger_accounts where owner = 'SERVICE' and kind = 'GAS' and network = 'TRON_TESTNET' and asset = 'TRX'`);
    expect(BigInt(paid!.total)).toBeGreaterThan(3_300_000n);
    expect(gas!.balance).toBe(`-${paid!.total}`);
    const check = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url), ['ledger', 'check', '--json']);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, unbalanced_entries: [], balance_mismatches: [], negative_balances: [] });
  }, 90_000);
});
