// Money that arrives where no wallet watches it, end to end on a real anvil
// with the chain-worker as an OS process (issue 31, ADR 0032): 30 USDC sent to
// a USDT wallet's address are listed by `ops deposit unexpected list` (no
// deposit, no webhook, the metric at 1), and the operator's credit makes them
// a USDC_ETH deposit of the workspace, credited and swept to the treasury,
// exactly once however often the command runs; ETH sent to a token wallet is
// listed too, is never burnt as the gas of that wallet's own sweep, and is
// returned to its sender once; the gas tank's top-ups are never listed, nor a
// deposit of a native wallet; a listed arrival a reorg took is forgotten.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { createWorkspace, startTestApi, testConfig, uniqueCall, TEST_SEED, type TestApi } from '../support/harness.js';
import { autoMine, OUTSIDE, startTestChain, type AutoMiner, type TestChain } from '../support/anvil-chain.js';
import { opsEnv, poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';

let db: TestDatabase;
let api: TestApi;
let ws: CreatedWorkspace;
let chain: TestChain;
let worker: Spawned | undefined;
let workerPort = 0;
let treasury: string;
let gasTank: string;
let miner: AutoMiner;

/**
 * Replaces every block from `block` to the head with empty ones. Mining pauses meanwhile (and the mines in
 * flight are waited for): a block mined between reading the head and the reorg would leave `block` in place.
 */
async function reorgFrom(block: bigint): Promise<void> {
  await miner.pause();
  try {
    const head = BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_blockNumber', []));
    await rpc(chain.anvil.rpcUrl, 'anvil_reorg', [Number(head - block) + 1, []]);
  } finally {
    miner.start();
  }
}
const ETH = 10n ** 18n;

const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T[]>(text, params);

interface Arrival {
  id: string;
  status: string;
  chain: string;
  asset: string;
  amount: string;
  chain_amount: string;
  wallet_id: string;
  wallet_asset: string;
  workspace_id: string;
  address: string;
  from_address: string;
  txid: string;
  deposit_id: string | null;
  return_transfer_id: string | null;
}

const ops = async (...args: string[]) => {
  const r = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url, { MASTER_SEED: TEST_SEED }), [...args, '--json']);
  return { code: r.code, body: JSON.parse(r.stdout || '{}') as Record<string, unknown>, stderr: r.stderr };
};
const arrivals = async () => ((await ops('deposit', 'unexpected', 'list')).body.unexpected ?? []) as Arrival[];
/** The arrival of transaction `txid`, once the chain-worker has listed it. */
/**
 * Waits on the table (a query) before asking the CLI (a process each time) what the operator sees: the CLI is
 * asked once the row says it should agree, and the assertions are on its answer.
 */
const seenInTable = (query: string, params: unknown[], ms: number, what: string): Promise<true> =>
  poll(async () => ((await sql(query, params)).length > 0 ? true : undefined), ms, `${what} (in the table)`);
const listedArrival = async (txid: string): Promise<Arrival> => {
  await seenInTable(`select 1 from unexpected_deposits where lower(txid) = ?`, [txid], 30_000, `${txid} listed`);
  return poll(async () => (await arrivals()).find((a) => a.txid === txid), 30_000, `${txid} listed`);
};
/** The CLI lists arrival `id` as RETURNED. */
const returned = async (id: string): Promise<void> => {
  await seenInTable(`select 1 from unexpected_deposits where id = ? and status = 'RETURNED'`, [id], 60_000, 'returned');
  await poll(async () => ((await arrivals()).find((a) => a.id === id)?.status === 'RETURNED' ? true : undefined), 30_000, 'returned');
};
/** The CLI no longer lists arrival `id` (a reorg took its block). */
const forgotten = async (id: string, ms: number): Promise<void> => {
  await seenInTable(`select 1 where not exists (select 1 from unexpected_deposits where id = ?)`, [id], ms, 'forgotten after the reorg');
  await poll(async () => ((await arrivals()).some((a) => a.id === id) ? undefined : true), 30_000, 'forgotten after the reorg');
};

const tokenBalance = async (token: string, address: string): Promise<bigint> =>
  BigInt(
    await rpc<string>(chain.anvil.rpcUrl, 'eth_call', [
      { to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] }) },
      'latest',
    ]),
  );
const nativeBalance = async (address: string) => BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_getBalance', [address, 'latest']));

const depositsOf = (walletId: string) =>
  sql<{ id: string; asset: string; status: string; amount: string; txid: string }>(
    `select id, asset, status, amount::text, txid from deposits where wallet_id = ? order by detected_at`,
    [walletId],
  );
const eventsOfTx = (txid: string) =>
  sql<{ event: string }>(`select event from webhook_events where payload::jsonb -> 'data' ->> 'txid' = ? order by created_at`, [txid]);
const metrics = async () => (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text();

async function wallet(asset: string): Promise<{ id: string; address: string }> {
  const res = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, address: res.body.address as string };
}

beforeAll(async () => {
  chain = await startTestChain({ chainId: 11155111, decimals: [6, 6, 6] });
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url, { ETH_TESTNET_CONFIRMATIONS: '2' }));
  ws = await createWorkspace(api, 'unexpected-e2e');
  const signer = new LocalHdSigner(TEST_SEED);
  treasury = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'treasury'));
  gasTank = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'gasTank'));
  await chain.sendNative(gasTank, 1n * ETH);
  await chain.mine();
  miner = autoMine(chain);
  miner.start(); // a block every 250 ms, like a live chain
  workerPort = await freePort();
  worker = spawnEntry(
    'src/bootstrap/chain-worker.ts',
    opsEnv(db.url, {
      LOG_LEVEL: 'info',
      MASTER_SEED: TEST_SEED,
      CHAIN_WORKER_PORT: String(workerPort),
      ETH_TESTNET_RPC_URL: chain.anvil.rpcUrl,
      ETH_TESTNET_CONFIRMATIONS: '2',
      ETH_TESTNET_START_BLOCK: '0',
      SCAN_POLL_MS: '100',
      SCAN_LEASE_SECONDS: '5',
      SEND_INTERVAL_MS: '200',
    }),
  );
  await worker.waitFor(/chain-worker listening/, 30_000);
}, 120_000);

afterAll(async () => {
  await miner?.pause();
  if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
  await api?.close();
  await db?.drop();
  await chain?.stop();
});

describe('money that arrives where no wallet watches it', () => {
  it('lists 30 USDC sent to a USDT wallet apart from deposits; the operator credits it once as a USDC_ETH deposit, swept to the treasury', async () => {
    const usdc = chain.tokens[1]!;
    const w = await wallet('USDT_ETH');
    const txid = (await chain.sendToken(usdc, w.address, 30_000_000n)).toLowerCase();
    const listed = await listedArrival(txid);
    expect(listed).toMatchObject({ status: 'LISTED', chain: 'ETH_TESTNET', asset: 'USDC_ETH', amount: '30.000000', wallet_id: w.id, wallet_asset: 'USDT_ETH', workspace_id: ws.workspaceId, address: w.address, deposit_id: null });
    // Never a deposit on its own, never told to the workspace; the operator sees it in a metric.
    expect(await depositsOf(w.id)).toEqual([]);
    expect(await eventsOfTx(txid)).toEqual([]);
    expect(await metrics()).toMatch(/deposits_unexpected\{network="ETH_TESTNET",asset="USDC_ETH"[^}]*\} 1/);
    const text = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url, { MASTER_SEED: TEST_SEED }), ['deposit', 'unexpected', 'list']);
    expect(text.stdout).toContain(`${listed.id} LISTED ETH_TESTNET: 30.000000 USDC_ETH to ${w.address}`);

    const treasuryBefore = await tokenBalance(usdc, treasury);
    const credit = await ops('deposit', 'unexpected', 'credit', '--id', listed.id);
    expect(credit.code).toBe(0);
    expect(credit.body).toMatchObject({ outcome: 'credited', status: 'CREDITED', asset: 'USDC_ETH' });
    const depositId = credit.body.deposit_id as string;
    // Twice, or at once from two terminals: one deposit.
    const again = await Promise.all([ops('deposit', 'unexpected', 'credit', '--id', listed.id), ops('deposit', 'unexpected', 'credit', '--id', listed.id)]);
    for (const r of again) expect(r.body).toMatchObject({ outcome: 'already_credited', deposit_id: depositId });

    // 30 USDC is under the sweep minimum: a credited arrival is swept all the same.
    await poll(async () => ((await depositsOf(w.id)).map((d) => d.status).join() === 'SWEPT' ? true : undefined), 60_000, 'credited and swept');
    const [deposit] = await depositsOf(w.id);
    expect(deposit).toMatchObject({ id: depositId, asset: 'USDC_ETH', amount: '30000000', txid });
    expect((await tokenBalance(usdc, treasury)) - treasuryBefore).toBe(30_000_000n);
    expect(await tokenBalance(usdc, w.address)).toBe(0n);
    expect((await eventsOfTx(txid)).map((e) => e.event)).toEqual(['DEPOSIT_DETECTED', 'DEPOSIT_CONFIRMED', 'DEPOSIT_SWEPT']);
    const credits = await sql<{ n: string }>(`select count(*)::text as n from journal_entries where reference = ?`, [`deposit:${depositId}:credit`]);
    expect(credits[0]!.n).toBe('1');
    // The workspace holds it as USDC_ETH (its fee taken), its wallet's USDT balance untouched.
    const balances = await uniqueCall(api.baseUrl, ws.testKey, 'GET', '/v2/balances');
    const usdcBalance = (balances.body.data as { asset: string; available: string }[]).find((b) => b.asset === 'USDC_ETH');
    expect(usdcBalance && Number(usdcBalance.available)).toBeGreaterThan(0);
    const [now] = (await arrivals()).filter((a) => a.id === listed.id);
    expect(now).toMatchObject({ status: 'CREDITED', deposit_id: depositId });
    expect(await metrics()).toMatch(/deposits_unexpected\{network="ETH_TESTNET",asset="USDC_ETH"[^}]*\} 0/); // 0, not gone: an alert sees it come back down
    // The gas tank's top-up of this address is the service's own move: never listed.
    expect((await arrivals()).filter((a) => a.from_address.toLowerCase() === gasTank.toLowerCase())).toEqual([]);
  }, 120_000);

  it('keeps ETH sent to a USDT wallet out of that wallet\'s sweep gas, and returns it to its sender once', async () => {
    const usdt = chain.tokens[0]!;
    const w = await wallet('USDT_ETH');
    const sender = OUTSIDE;
    const sent = 10n ** 16n; // 0.01 ETH
    const txid = (await chain.sendNative(w.address, sent)).toLowerCase();
    const listed = await listedArrival(txid);
    expect(listed).toMatchObject({ status: 'LISTED', asset: 'ETH', chain_amount: sent.toString(), wallet_id: w.id, from_address: sender });

    // The wallet's own USDT is swept with gas the gas tank sends: the 0.01 ETH lying there is not its to burn.
    await chain.sendToken(usdt, w.address, 70_000_000n);
    await poll(async () => ((await depositsOf(w.id)).map((d) => d.status).join() === 'SWEPT' ? true : undefined), 60_000, 'USDT swept');
    const topUps = await sql<{ n: string }>(`select count(*)::text as n from outgoing_transfers where kind = 'GAS_TOPUP' and to_address = ?`, [w.address]);
    expect(Number(topUps[0]!.n)).toBeGreaterThan(0);
    expect(await nativeBalance(w.address)).toBeGreaterThanOrEqual(sent);

    const before = await nativeBalance(sender);
    const marked = await ops('deposit', 'unexpected', 'return', '--id', listed.id);
    expect(marked.code).toBe(0);
    expect(marked.body).toMatchObject({ outcome: 'returning', status: 'RETURNING' });
    // Asked again: the same return, never a second one.
    expect((await ops('deposit', 'unexpected', 'return', '--id', listed.id)).body.status).toMatch(/^RETURN(ING|ED)$/);
    await returned(listed.id);
    const returns = await sql<{ amount: string; to_address: string; status: string }>(
      `select amount::text, to_address, status from outgoing_transfers where kind = 'UNEXPECTED_RETURN' and from_address = ?`,
      [w.address],
    );
    expect(returns).toHaveLength(1);
    expect(returns[0]).toMatchObject({ to_address: sender, status: 'CONFIRMED' });
    // A native return pays its own gas from what came: the sender gets the rest, and a credit is refused now.
    const back = (await nativeBalance(sender)) - before;
    expect(back).toBe(BigInt(returns[0]!.amount));
    expect(back).toBeGreaterThan(sent / 2n);
    expect(back).toBeLessThanOrEqual(sent);
    const credit = await ops('deposit', 'unexpected', 'credit', '--id', listed.id);
    expect([credit.code, credit.body.code]).toEqual([2, 'CONFLICT']);
    expect(credit.body.error).toMatch(/RETURNED/);
    expect(await depositsOf(w.id)).toHaveLength(1);
  }, 120_000);

  it('credits a token arrival on an ETH wallet: the gas tank\'s top-up is no deposit, and the wallet\'s own ETH is not burnt as gas', async () => {
    const usdc = chain.tokens[1]!;
    // The wallet's own 0.005 ETH stays unswept (a minimum of 1 ETH) while its credited USDC is swept.
    expect((await ops('sweep', 'policy', 'set', '--chain', 'ETH_TESTNET', '--asset', 'ETH', '--minimum', '1')).code).toBe(0);
    const e = await wallet('ETH');
    const own = 5n * 10n ** 15n;
    await chain.sendNative(e.address, own);
    await poll(async () => ((await depositsOf(e.id)).map((d) => d.status).join() === 'CONFIRMED' ? true : undefined), 30_000, 'the ETH deposit credited');
    const txid = (await chain.sendToken(usdc, e.address, 20_000_000n)).toLowerCase();
    const listed = await listedArrival(txid);
    expect((await ops('deposit', 'unexpected', 'credit', '--id', listed.id)).body).toMatchObject({ outcome: 'credited' });
    await poll(async () => ((await depositsOf(e.id)).find((d) => d.asset === 'USDC_ETH')?.status === 'SWEPT' ? true : undefined), 60_000, 'the USDC swept');
    // Its gas came from the gas tank, not from the customer's ETH, and the top-up became no deposit nor webhook.
    const topUps = await sql<{ txid: string }>(
      `select a.txid from outgoing_transfers t join transfer_attempts a on a.transfer_id = t.id where t.kind = 'GAS_TOPUP' and t.to_address = ? and t.status = 'CONFIRMED'`,
      [e.address],
    );
    expect(topUps.length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1500)); // a few more scanner steps over the top-up's block
    expect((await depositsOf(e.id)).map((d) => `${d.asset}:${d.status}`).sort()).toEqual(['ETH:CONFIRMED', 'USDC_ETH:SWEPT']);
    for (const t of topUps) expect(await eventsOfTx(t.txid.toLowerCase())).toEqual([]);
    expect(await nativeBalance(e.address)).toBeGreaterThanOrEqual(own);
    expect((await arrivals()).filter((a) => a.address === e.address).map((a) => a.asset)).toEqual(['USDC_ETH']);
  }, 120_000);

  it('forgets a listed arrival whose block a reorg took, so that nothing is returned with someone else\'s money', async () => {
    const usdc = chain.tokens[1]!;
    const w = await wallet('USDT_ETH');
    const txid = (await chain.sendToken(usdc, w.address, 30_000_000n)).toLowerCase();
    const listed = await listedArrival(txid);
    const [row] = await sql<{ block: string }>(`select block_number::text as block from unexpected_deposits where id = ?`, [listed.id]);
    await reorgFrom(BigInt(row!.block));
    await forgotten(listed.id, 30_000);
    expect(await rpc(chain.anvil.rpcUrl, 'eth_getTransactionReceipt', [txid])).toBeNull();
    const gone = await ops('deposit', 'unexpected', 'return', '--id', listed.id);
    expect([gone.code, gone.body.code]).toEqual([2, 'NOT_FOUND']);
    expect(await tokenBalance(usdc, w.address)).toBe(0n);
  }, 60_000);

  it('forgets a return still waiting for gas when a reorg takes its arrival, and never sends it', async () => {
    const usdc = chain.tokens[1]!;
    const w = await wallet('USDT_ETH');
    const kept = await nativeBalance(gasTank);
    await rpc(chain.anvil.rpcUrl, 'anvil_setBalance', [gasTank, '0x0']); // the return's top-up cannot be paid: it waits
    try {
      const txid = (await chain.sendToken(usdc, w.address, 30_000_000n)).toLowerCase();
      const listed = await listedArrival(txid);
      await poll(async () => ((await ops('deposit', 'unexpected', 'return', '--id', listed.id)).body.outcome === 'returning' ? true : undefined), 30_000, 'returning');
      await poll(async () => ((await sql(`select 1 from sweeps where return_of = ? and status = 'WAITING_GAS'`, [listed.id])).length > 0 ? true : undefined), 30_000, 'the return sweep waiting');
      const [row] = await sql<{ block: string }>(`select block_number::text as block from unexpected_deposits where id = ?`, [listed.id]);
      await reorgFrom(BigInt(row!.block));
      // The scanner finds the reorg at its own pace: more than a minute when a slow machine runs other sandboxes beside this one.
      await forgotten(listed.id, 120_000);
      expect(await sql<{ status: string }>(`select status from sweeps where return_of = ?`, [listed.id])).toEqual([{ status: 'FAILED' }]);
    } finally {
      await rpc(chain.anvil.rpcUrl, 'anvil_setBalance', [gasTank, `0x${kept.toString(16)}`]);
    }
    // With gas again, nothing is returned, and the wallet's own sweeps go on.
    await chain.sendToken(chain.tokens[0]!, w.address, 60_000_000n);
    await poll(async () => ((await depositsOf(w.id)).map((d) => d.status).join() === 'SWEPT' ? true : undefined), 120_000, 'the USDT swept');
    expect(await sql(`select id from outgoing_transfers where kind = 'UNEXPECTED_RETURN' and from_address = ?`, [w.address])).toEqual([]);
  }, 360_000);

  it('gives a return the token refuses back to the operator, without holding the wallet\'s own sweeps', async () => {
    const usdc = chain.tokens[1]!;
    const usdt = chain.tokens[0]!;
    const w = await wallet('USDT_ETH');
    const txid = (await chain.sendToken(usdc, w.address, 30_000_000n)).toLowerCase();
    const listed = await listedArrival(txid);
    await chain.setBlocked(usdc, OUTSIDE, true);
    await chain.mine();
    await poll(async () => ((await ops('deposit', 'unexpected', 'return', '--id', listed.id)).body.outcome === 'returning' ? true : undefined), 30_000, 'returning');
    const failedReturn = async () =>
      (await sql<{ status: string }>(`select status from sweeps where return_of = ?`, [listed.id])).some((r) => r.status === 'FAILED') ? true : undefined;
    await poll(failedReturn, 60_000, 'the refused return ended');
    expect((await arrivals()).find((a) => a.id === listed.id)).toMatchObject({ status: 'LISTED', return_transfer_id: null });
    expect(await tokenBalance(usdc, w.address)).toBe(30_000_000n);
    // The wallet's own USDT is swept meanwhile: the refused return holds nothing.
    await chain.sendToken(usdt, w.address, 60_000_000n);
    await poll(async () => ((await depositsOf(w.id)).map((d) => d.status).join() === 'SWEPT' ? true : undefined), 60_000, 'the USDT swept');
    // Unblocked, the operator returns it again: once.
    await chain.setBlocked(usdc, OUTSIDE, false);
    await chain.mine();
    expect((await ops('deposit', 'unexpected', 'return', '--id', listed.id)).body).toMatchObject({ outcome: 'returning' });
    await returned(listed.id);
    expect(await tokenBalance(usdc, w.address)).toBe(0n);
    const returns = await sql<{ status: string }>(`select status from outgoing_transfers where kind = 'UNEXPECTED_RETURN' and from_address = ?`, [w.address]);
    expect(returns.map((r) => r.status)).toEqual(['CONFIRMED']);
  }, 180_000);

  it('refuses what is not an arrival id, and the ledger check stays ok', async () => {
    const bad = await ops('deposit', 'unexpected', 'credit', '--id', 'not-an-id');
    expect([bad.code, bad.body.code]).toEqual([2, 'VALIDATION_ERROR']);
    for (const action of ['credit', 'return']) {
      const missing = await ops('deposit', 'unexpected', action, '--id', '00000000-0000-4000-8000-000000000000');
      expect([missing.code, missing.body.code]).toEqual([2, 'NOT_FOUND']);
    }
    const check = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url), ['ledger', 'check', '--json']);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, unbalanced_entries: [], balance_mismatches: [], negative_balances: [] });
  }, 120_000); // four ops processes: seconds each when the machine is busy
});
