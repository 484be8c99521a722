// Sweeps and the outgoing-transfer pipeline end to end on a real anvil, with
// the chain-worker as an OS process (issue 15's acceptance on EVM): a token
// deposit is topped up and swept, the treasury's balance read from the node;
// native ETH is swept minus its own gas; deposits under the minimum wait and
// are swept together; a SIGKILL between signing and broadcasting leaves
// exactly one transaction and no skipped nonce; a transaction stuck under the
// base fee is replaced at its nonce and confirmed once; an empty gas tank
// leaves sweeps waiting (deposits still credited) until it is refilled; gas
// is booked to the service and the ledger check reports zero differences.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, encodeFunctionData, erc20Abi, http, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { createWorkspace, startTestApi, testConfig, uniqueCall, TEST_SEED, type TestApi } from '../support/harness.js';
import { autoMine, startTestChain, type AutoMiner, type TestChain } from '../support/anvil-chain.js';
import { opsEnv, poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';

let db: TestDatabase;
let api: TestApi;
let ws: CreatedWorkspace;
let chain: TestChain;
let proxy: RpcProxy;
let worker: Spawned | undefined;
let workerPort = 0;
let treasury: string;
let gasTank: string;
let miner: AutoMiner;
const ETH = 10n ** 18n;

const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T[]>(text, params);

async function startWorker(): Promise<Spawned> {
  workerPort = await freePort();
  worker = spawnEntry(
    'src/bootstrap/chain-worker.ts',
    opsEnv(db.url, {
      LOG_LEVEL: 'info',
      MASTER_SEED: TEST_SEED,
      CHAIN_WORKER_PORT: String(workerPort),
      ETH_TESTNET_RPC_URL: proxy.url,
      ETH_TESTNET_CONFIRMATIONS: '2',
      ETH_TESTNET_START_BLOCK: '0',
      SCAN_POLL_MS: '100',
      SCAN_LEASE_SECONDS: '5',
      SEND_INTERVAL_MS: '200',
      TRANSFER_REPLACE_AFTER_SECONDS: '3',
    }),
  );
  await worker.waitFor(/chain-worker listening/, 30_000);
  return worker;
}

/** A block every 250 ms, like a live chain, until paused (a pause waits for the mines in flight). */
async function keepMining(on: boolean): Promise<void> {
  if (on) miner.start();
  else await miner.pause();
}

async function wallet(asset: string): Promise<{ id: string; address: string }> {
  const res = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, address: res.body.address as string };
}

const tokenBalance = async (token: string, address: string): Promise<bigint> =>
  BigInt(
    await rpc<string>(chain.anvil.rpcUrl, 'eth_call', [
      { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] }) },
      'latest',
    ]),
  );
const nativeBalance = async (address: string) => BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_getBalance', [address, 'latest']));
const nonceOf = async (address: string) => BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_getTransactionCount', [address, 'latest']));

const depositsOf = (walletId: string) =>
  sql<{ id: string; status: string; sweep_id: string | null }>(`select id, status, sweep_id from deposits where wallet_id = ? order by detected_at`, [walletId]);
const walletStatus = async (id: string) => (await sql<{ status: string }>(`select status from wallets where id = ?`, [id]))[0]!.status;
const sweptEvents = (depositId: string) =>
  sql<{ payload: string }>(`select payload from webhook_events where event = 'DEPOSIT_SWEPT' and payload::jsonb -> 'data' ->> 'deposit_id' = ?`, [depositId]);
const transfersOf = (address: string) =>
  sql<{ id: string; kind: string; status: string; nonce: string | null; included_txid: string | null; fee_paid: string | null }>(
    `select id, kind, status, nonce::text, included_txid, fee_paid::text from outgoing_transfers where from_address = ? or to_address = ? order by requested_at`,
    [address, address],
  );
const attemptsOf = (transferId: string) =>
  sql<{ txid: string; max_fee_per_gas: string }>(`select txid, max_fee_per_gas::text from transfer_attempts where transfer_id = ? order by seq`, [transferId]);

const allSwept = async (walletId: string, count: number) => {
  const rows = await depositsOf(walletId);
  return rows.length === count && rows.every((r) => r.status === 'SWEPT') ? rows : undefined;
};

beforeAll(async () => {
  chain = await startTestChain({ chainId: 11155111, decimals: [6, 6, 6] });
  miner = autoMine(chain);
  proxy = await startRpcProxy(chain.anvil.rpcUrl);
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url, { ETH_TESTNET_CONFIRMATIONS: '2' }));
  ws = await createWorkspace(api, 'sweeps-e2e');
  const signer = new LocalHdSigner(TEST_SEED);
  treasury = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'treasury'));
  gasTank = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'gasTank'));
  await chain.sendNative(gasTank, 1n * ETH);
  await chain.mine();
  await keepMining(true);
  await startWorker();
}, 120_000);

afterAll(async () => {
  await keepMining(false);
  if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
  await api?.close();
  await db?.drop();
  await proxy?.close();
  await chain?.stop();
});

describe('sweeps on a real anvil', () => {
  it('tops up a USDT deposit address, sweeps 60 USDT to the treasury, marks it SWEPT with DEPOSIT_SWEPT and its fee object', async () => {
    const usdt = chain.tokens[0]!;
    const before = await tokenBalance(usdt, treasury);
    const w = await wallet('USDT_ETH');
    await chain.sendToken(usdt, w.address, 60_000_000n);
    const [deposit] = await poll(() => allSwept(w.id, 1), 60_000, 'the deposit swept');
    expect((await tokenBalance(usdt, treasury)) - before).toBe(60_000_000n);
    expect(await tokenBalance(usdt, w.address)).toBe(0n);
    const [event] = await sweptEvents(deposit!.id);
    const data = (JSON.parse(event!.payload) as { data: Record<string, unknown> }).data;
    // 60 USDT: 0.90 % is 0.54, under the 3 USDT minimum fee, so the minimum applies.
    expect(data).toMatchObject({
      deposit_id: deposit!.id,
      wallet_id: w.id,
      chain: 'ETH_TESTNET',
      asset: 'USDT_ETH',
      amount: '60.000000',
      status: 'SWEPT',
      fee: { gross_amount: '60.000000', fee_amount: '3.000000', net_amount: '57.000000', applied_rate: '0.009000', applied_min_fee: '3.000000' },
    });
    expect(await walletStatus(w.id)).toBe('SWEPT');
    // A top-up from the gas tank, then the sweep from the deposit address; both paid gas, booked to the service.
    const transfers = await transfersOf(w.address);
    expect(transfers.map((t) => [t.kind, t.status])).toEqual([
      ['GAS_TOPUP', 'CONFIRMED'],
      ['SWEEP', 'CONFIRMED'],
    ]);
    const gas = await sql<{ reference: string }>(`select reference from journal_entries where kind = 'SWEEP_GAS'`);
    expect(gas.map((g) => g.reference)).toEqual(expect.arrayContaining(transfers.map((t) => `gas:transfer:${t.id}`)));
  }, 90_000);

  it('sweeps a native ETH deposit minus the gas of the sweep itself', async () => {
    const w = await wallet('ETH');
    const before = await nativeBalance(treasury);
    await chain.sendNative(w.address, 5n * 10n ** 16n);
    await poll(() => allSwept(w.id, 1), 60_000, 'the ETH deposit swept');
    const [sweep] = await transfersOf(w.address);
    expect(sweep).toMatchObject({ kind: 'SWEEP', status: 'CONFIRMED' });
    const received = (await nativeBalance(treasury)) - before;
    const fee = BigInt(sweep!.fee_paid!);
    expect(fee).toBeGreaterThan(0n);
    // What is left on the address is the unspent part of the gas reserved at the fee cap: small, never more than 21000 × the cap.
    expect(received + fee + (await nativeBalance(w.address))).toBe(5n * 10n ** 16n);
    expect(received).toBeGreaterThan(49n * 10n ** 15n);
  }, 90_000);

  it('lets deposits under the minimum wait and sweeps them together once their sum passes it', async () => {
    const usdt = chain.tokens[0]!;
    const w = await wallet('USDT_ETH');
    await chain.sendToken(usdt, w.address, 30_000_000n);
    await poll(async () => ((await depositsOf(w.id))[0]?.status === 'CONFIRMED' ? true : undefined), 30_000, 'the first credited');
    await new Promise((r) => setTimeout(r, 2000));
    expect((await depositsOf(w.id))[0]).toMatchObject({ status: 'CONFIRMED', sweep_id: null });
    expect(await transfersOf(w.address)).toEqual([]);
    await chain.sendToken(usdt, w.address, 30_000_000n);
    const rows = await poll(() => allSwept(w.id, 2), 60_000, 'both swept');
    expect(rows[0]!.sweep_id).toBe(rows[1]!.sweep_id);
    expect((await transfersOf(w.address)).filter((t) => t.kind === 'SWEEP')).toHaveLength(1);
  }, 90_000);

  it('sweeps a deposit that arrives during the top-up exactly once, by the sweep it is tied to, and never fails a sweep for it', async () => {
    const usdt = chain.tokens[0]!;
    const before = await tokenBalance(usdt, treasury);
    const w = await wallet('USDT_ETH');
    await chain.sendToken(usdt, w.address, 60_000_000n);
    await poll(async () => {
      const t = await transfersOf(w.address);
      return t[0]?.kind === 'GAS_TOPUP' ? true : undefined;
    }, 30_000, 'the top-up requested');
    await chain.sendToken(usdt, w.address, 61_000_000n); // while the address is being topped up
    const rows = await poll(() => allSwept(w.id, 2), 60_000, 'both swept');
    expect((await tokenBalance(usdt, treasury)) - before).toBe(121_000_000n);
    expect(await tokenBalance(usdt, w.address)).toBe(0n);
    const sweeps = await sql<{ id: string; status: string }>(`select id, status from sweeps where wallet_id = ?`, [w.id]);
    expect(sweeps.every((x) => x.status === 'SWEPT')).toBe(true);
    expect(new Set(rows.map((r) => r.sweep_id)).size).toBeLessThanOrEqual(sweeps.length);
    expect(await walletStatus(w.id)).toBe('SWEPT');
  }, 120_000);

  it('after a SIGKILL between signing and broadcasting, sends exactly one transaction for the sweep and skips no nonce', async () => {
    const w = await wallet('ETH');
    proxy.failMethods.add('eth_sendRawTransaction'); // signed and recorded, but never reaching the node
    await chain.sendNative(w.address, 3n * 10n ** 16n);
    const [signed] = await poll(async () => {
      const t = await transfersOf(w.address);
      return t[0]?.status === 'SIGNED' ? t : undefined;
    }, 30_000, 'the sweep signed');
    const attempts = await attemptsOf(signed!.id);
    worker!.child.kill('SIGKILL');
    await worker!.exit();
    proxy.failMethods.clear();
    expect(await nonceOf(w.address)).toBe(0n);
    await startWorker();
    await poll(() => allSwept(w.id, 1), 60_000, 'swept after the restart');
    const [done] = await transfersOf(w.address);
    expect(done).toMatchObject({ status: 'CONFIRMED', nonce: '0', included_txid: attempts[0]!.txid });
    expect(await attemptsOf(done!.id)).toHaveLength(1);
    expect(await nonceOf(w.address)).toBe(1n); // one transaction from the address, at nonce 0
  }, 120_000);

  it('fails a sweep whose nonce another transaction took, tells the sweep, and sweeps the deposit again with a new transfer', async () => {
    const w = await wallet('ETH');
    proxy.failMethods.add('eth_sendRawTransaction'); // our signed sweep never reaches the node
    await chain.sendNative(w.address, 4n * 10n ** 16n);
    const [signed] = await poll(async () => {
      const t = await transfersOf(w.address);
      return t[0]?.status === 'SIGNED' ? t : undefined;
    }, 30_000, 'the sweep signed');
    // Someone else with the address's key (an outside signer) spends nonce 0 first.
    const [path] = await sql<{ derivation_account: number; derivation_index: number }>(`select derivation_account, derivation_index from wallets where id = ?`, [w.id]);
    const outsider = mnemonicToAccount(TEST_SEED, { path: `m/44'/60'/${path!.derivation_account}'/0/${path!.derivation_index}` });
    expect(outsider.address).toBe(w.address);
    const other = createWalletClient({ account: outsider, chain: { id: 11155111, name: 'test', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [chain.anvil.rpcUrl] } } }, transport: http(chain.anvil.rpcUrl) });
    await other.sendTransaction({ to: treasury as Hex, value: 10n ** 15n, gas: 21_000n, nonce: 0 });
    await poll(async () => ((await nonceOf(w.address)) === 1n ? true : undefined), 10_000, 'the outside transaction mined');
    proxy.failMethods.clear();
    await poll(() => allSwept(w.id, 1), 60_000, 'swept by a second transfer');
    const transfers = await transfersOf(w.address);
    expect(transfers.map((t) => [t.id === signed!.id, t.status, t.nonce])).toEqual([
      [true, 'FAILED', '0'],
      [false, 'CONFIRMED', '1'],
    ]);
    const [failure] = await sql<{ failure: string }>(`select failure from outgoing_transfers where id = ?`, [signed!.id]);
    expect(failure!.failure).toMatch(/another transaction took its nonce/);
    const sweeps = await sql<{ status: string }>(`select status from sweeps where wallet_id = ? order by created_at`, [w.id]);
    expect(sweeps.map((x) => x.status)).toEqual(['FAILED', 'SWEPT']);
  }, 120_000);

  it('replaces a top-up stuck under the base fee at the same nonce, and it is confirmed once', async () => {
    const usdt = chain.tokens[0]!;
    const w = await wallet('USDT_ETH');
    // The earlier tests' transfers must be final first: one still pending from the gas tank would hold
    // this top-up's nonce back once mining pauses (seen on a loaded CI machine).
    await poll(async () => {
      const [open] = await sql<{ n: string }>(`select count(*)::text as n from outgoing_transfers where status not in ('CONFIRMED', 'FAILED')`);
      return open!.n === '0' ? true : undefined;
    }, 60_000, 'the earlier transfers final');
    // Blocks only by hand from here: the deposit's block and its confirmation, then none, so its sweep's
    // top-up can only wait in the pool (with blocks still coming, a loaded machine saw it mined first).
    await keepMining(false);
    try {
      await chain.sendToken(usdt, w.address, 70_000_000n);
      await chain.mine();
      await chain.mine();
      await poll(async () => ((await depositsOf(w.id))[0]?.status === 'CONFIRMED' ? true : undefined), 30_000, 'credited');
      await replacedAndSwept(w);
    } finally {
      await keepMining(true); // whatever happens here, the next tests need blocks
    }
  }, 180_000);

  async function replacedAndSwept(w: { id: string; address: string }) {
    const [topUp] = await poll(async () => {
      const t = await transfersOf(w.address);
      return t[0]?.kind === 'GAS_TOPUP' && t[0].status === 'BROADCAST' ? t : undefined;
    }, 30_000, 'the top-up broadcast').catch((err: unknown) => {
      throw new Error(`${String(err)}\n${worker!.output().slice(-3000)}`);
    });
    const [first] = await attemptsOf(topUp!.id);
    const tankNonce = await nonceOf(gasTank);
    // Mining is paused: the top-up is still in the pool, at the nonce the gas tank is at.
    expect(await rpc(chain.anvil.rpcUrl, 'eth_getTransactionReceipt', [first!.txid])).toBeNull();
    expect(BigInt(topUp!.nonce!)).toBe(tankNonce);
    // The next block's base fee jumps above what the first attempt pays: it stays in the pool, unmined.
    await rpc(chain.anvil.rpcUrl, 'anvil_setNextBlockBaseFeePerGas', [`0x${(BigInt(first!.max_fee_per_gas) * 4n).toString(16)}`]);
    await chain.mine();
    expect(await nonceOf(gasTank)).toBe(tankNonce);
    await poll(async () => ((await attemptsOf(topUp!.id)).length > 1 ? true : undefined), 60_000, 'a replacement signed').catch((err: unknown) => {
      throw new Error(`${String(err)}\n${worker!.output().slice(-3000)}`);
    });
    await keepMining(true);
    await poll(() => allSwept(w.id, 1), 90_000, 'swept after the replacement');
    const attempts = await attemptsOf(topUp!.id);
    const [done] = (await transfersOf(w.address)).filter((t) => t.id === topUp!.id);
    expect(done!.status).toBe('CONFIRMED');
    expect(attempts.length).toBeGreaterThan(1);
    expect(BigInt(attempts[1]!.max_fee_per_gas)).toBeGreaterThan(BigInt(first!.max_fee_per_gas));
    expect(attempts.map((a) => a.txid)).toContain(done!.included_txid);
    expect(done!.included_txid).not.toBe(first!.txid);
    // One nonce for the top-up, whatever its attempts: the transaction mined at it is one of them.
    const mined = await rpc<{ nonce: string }>(chain.anvil.rpcUrl, 'eth_getTransactionByHash', [done!.included_txid]);
    expect(BigInt(mined.nonce)).toBe(BigInt(done!.nonce!));
    expect(BigInt(done!.nonce!)).toBe(tankNonce);
    expect(await rpc(chain.anvil.rpcUrl, 'eth_getTransactionReceipt', [first!.txid])).toBeNull();
  }

  it('with the gas tank empty, credits deposits and lets sweeps wait; after a refill they complete by themselves', async () => {
    const usdt = chain.tokens[0]!;
    const kept = await nativeBalance(gasTank);
    await rpc(chain.anvil.rpcUrl, 'anvil_setBalance', [gasTank, '0x0']);
    const w = await wallet('USDT_ETH');
    await chain.sendToken(usdt, w.address, 80_000_000n);
    await poll(async () => ((await depositsOf(w.id))[0]?.status === 'CONFIRMED' ? true : undefined), 60_000, 'credited');
    await poll(async () => (/gas_tank_low\{network="ETH_TESTNET"[^}]*\} 1/.test(await (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text()) ? true : undefined), 20_000, 'gas_tank_low').catch(async (err: unknown) => {
      const m = await (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text();
      throw new Error(`${String(err)}\n${m.split('\n').filter((l) => l.includes('gas')).join('\n')}`);
    });
    await new Promise((r) => setTimeout(r, 2000));
    expect(await transfersOf(w.address)).toEqual([]);
    expect((await depositsOf(w.id))[0]!.status).toBe('CONFIRMED');
    expect(worker!.output().match(/gas tank too low/g)).toHaveLength(1);
    await rpc(chain.anvil.rpcUrl, 'anvil_setBalance', [gasTank, `0x${kept.toString(16)}`]);
    await poll(() => allSwept(w.id, 1), 60_000, 'swept after the refill');
    expect(await (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text()).toMatch(/gas_tank_low\{network="ETH_TESTNET"[^}]*\} 0/);
  }, 120_000);

  it('lets the sweep of a deposit address its token has blocked wait alone, while another wallet is swept; unblocked, it is swept too', async () => {
    const usdc = chain.tokens[1]!;
    const frozen = await wallet('USDC_ETH');
    const other = await wallet('USDC_ETH');
    // 40 USDC each, under the 50 minimum: credited, not swept yet.
    await chain.sendToken(usdc, frozen.address, 40_000_000n);
    await chain.sendToken(usdc, other.address, 40_000_000n);
    for (const w of [frozen, other]) await poll(async () => ((await depositsOf(w.id)).map((d) => d.status).join() === 'CONFIRMED' ? true : undefined), 30_000, `credited ${w.id}`);
    // The issuer freezes one of them; then the minimum falls under what both hold.
    const blocking = await chain.setBlocked(usdc, frozen.address, true);
    await poll(async () => ((await rpc(chain.anvil.rpcUrl, 'eth_getTransactionReceipt', [blocking])) ? true : undefined), 10_000, 'the block in a block');
    const policy = (minimum: string) => runEntry('src/bootstrap/ops.ts', opsEnv(db.url), ['sweep', 'policy', 'set', '--chain', 'ETH_TESTNET', '--asset', 'USDC_ETH', '--minimum', minimum, '--json']);
    expect((await policy('30')).code).toBe(0);
    await poll(() => allSwept(other.id, 1), 60_000, 'the other wallet swept');
    expect((await depositsOf(frozen.id)).map((d) => d.status)).toEqual(['CONFIRMED']);
    expect(await transfersOf(frozen.address)).toEqual([]); // not even a top-up: the dry run said no first
    await poll(async () => (/a sweep could not advance/.test(worker!.output()) ? true : undefined), 10_000, 'the warning');
    expect(worker!.output()).toMatch(new RegExp(`refuses the transfer from ${frozen.address}`));
    // Unfrozen, it is swept like any other.
    await chain.setBlocked(usdc, frozen.address, false);
    await poll(() => allSwept(frozen.id, 1), 60_000, 'the unfrozen wallet swept');
    expect(await tokenBalance(usdc, frozen.address)).toBe(0n);
    expect((await policy('50')).code).toBe(0);
  }, 150_000);

  it('books all gas to the service: the ledger check reports zero differences and no workspace paid for it', async () => {
    const check = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url), ['ledger', 'check', '--json']);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, unbalanced_entries: [], balance_mismatches: [], negative_balances: [] });
    const workspaceGas = await sql<{ n: string }>(
      `select count(*)::text as n from postings p join ledger_accounts a on a.id = p.account_id
       join journal_entries j on j.id = p.entry_id where j.kind = 'SWEEP_GAS' and a.owner <> 'SERVICE'`,
    );
    expect(workspaceGas[0]!.n).toBe('0');
  });
});
