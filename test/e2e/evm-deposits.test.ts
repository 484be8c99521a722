// Deposits end to end on a real anvil with chain-workers as OS processes
// (the acceptance): two chain-workers see the same transfers and
// each is one deposit, credited once; the node unreachable for 30 s while
// transfers arrive, and a chain-worker SIGKILLed and restarted while they
// arrive: every transfer credited exactly once afterwards; a deposit in an
// orphaned block becomes FAILED and is never credited; one whose transaction
// is re-included keeps its identity; a credited deposit removed by a deeper
// reorg is reversed and the ledger check reports zero differences.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, parseAbi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { createWorkspace, startTestApi, testConfig, uniqueCall, type TestApi } from '../support/harness.js';
import { startTestChain, type TestChain } from '../support/anvil-chain.js';
import { opsEnv, poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';

let db: TestDatabase;
let api: TestApi;
let ws: CreatedWorkspace;
let chain: TestChain;
let proxy: RpcProxy;
const workers: Spawned[] = [];
/** Each chain-worker's probe port, by its place in `workers`. */
const workerPorts: number[] = [];

const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T[]>(text, params);

async function startWorker(): Promise<Spawned> {
  const probePort = await freePort();
  workerPorts.push(probePort);
  const w = spawnEntry(
    'src/bootstrap/chain-worker.ts',
    opsEnv(db.url, {
      LOG_LEVEL: 'info',
      CHAIN_WORKER_PORT: String(probePort),
      ETH_TESTNET_RPC_URL: proxy.url,
      ETH_TESTNET_CONFIRMATIONS: '2',
      ETH_TESTNET_START_BLOCK: '0',
      SCAN_POLL_MS: '100',
      SCAN_LEASE_SECONDS: '5',
    }),
  );
  workers.push(w);
  await w.waitFor(/chain-worker listening/, 30_000);
  return w;
}

async function wallet(asset: string): Promise<{ id: string; address: string }> {
  const res = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, address: res.body.address as string };
}

const depositsOf = (walletId: string) =>
  sql<{ id: string; status: string; txid: string; amount: string; net_amount: string | null }>(
    `select id, status, txid, amount::text, net_amount::text from deposits where wallet_id = ? order by detected_at`,
    [walletId],
  );

const credits = async (walletId: string) =>
  Number(
    (
      await sql<{ n: string }>(
        `select count(*)::text as n from journal_entries j join deposits d on j.reference = 'deposit:' || d.id || ':credit' where d.wallet_id = ?`,
        [walletId],
      )
    )[0]!.n,
  );

/** Mines a block every 200 ms until `done` holds. */
async function mineUntil(done: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  await poll(
    async () => {
      await chain.mine();
      return (await done()) ? true : undefined;
    },
    timeoutMs,
    what,
  );
}

const allConfirmed = async (walletIds: string[], count: number) => {
  const rows = (await Promise.all(walletIds.map(depositsOf))).flat();
  return rows.length === count && rows.every((r) => r.status === 'CONFIRMED' || r.status === 'SWEPT'); // a native deposit is swept at once (no top-up needed)
};

beforeAll(async () => {
  chain = await startTestChain({ chainId: 11155111, decimals: [6, 6, 6] });
  proxy = await startRpcProxy(chain.anvil.rpcUrl);
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url, { ETH_TESTNET_CONFIRMATIONS: '2' }));
  ws = await createWorkspace(api, 'evm-e2e');
  await startWorker();
  await startWorker();
}, 120_000);

afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  await api?.close();
  await db?.drop();
  await proxy?.close();
  await chain?.stop();
});

describe('deposits on a real anvil with two chain-workers', () => {
  it('credits each transfer once although two chain-workers run: USDT, USDC, EURC and native ETH', async () => {
    const usdt = await wallet('USDT_ETH');
    const usdc = await wallet('USDC_ETH');
    const eurc = await wallet('EURC_ETH');
    const eth = await wallet('ETH');
    await chain.sendToken(chain.tokens[0]!, usdt.address, 25_000_000n);
    await chain.sendToken(chain.tokens[1]!, usdc.address, 60_000_000n);
    await chain.sendToken(chain.tokens[2]!, eurc.address, 70_000_000n);
    await chain.sendNative(eth.address, 2n * 10n ** 16n);
    await mineUntil(() => allConfirmed([usdt.id, usdc.id, eurc.id, eth.id], 4), 30_000, 'four deposits confirmed');
    for (const w of [usdt, usdc, eurc, eth]) expect(await credits(w.id)).toBe(1);
    const balances = await uniqueCall(api.baseUrl, ws.testKey, 'GET', '/v2/balances');
    const available = Object.fromEntries((balances.body.data as { asset: string; available: string }[]).map((b) => [b.asset, b.available]));
    // Fees: max(0.90 %, minimum): USDT 25 → 3 (min), USDC 60 → 3 (min), EURC 70 → 3 (min), ETH 0.02 → 0.0005 (min).
    expect(available).toEqual({ USDT_ETH: '22.000000', USDC_ETH: '57.000000', EURC_ETH: '67.000000', ETH: '0.019500000000000000' });
  });

  it('credits every transfer exactly once after the node was unreachable for 30 s while they arrived', async () => {
    const wallets = [await wallet('USDT_ETH'), await wallet('USDT_ETH'), await wallet('USDT_ETH')];
    proxy.mode = 'down';
    const until = Date.now() + 30_000;
    for (const w of wallets) {
      await chain.sendToken(chain.tokens[0]!, w.address, 51_000_000n);
      await chain.mine();
    }
    while (Date.now() < until) {
      await chain.mine();
      await new Promise((r) => setTimeout(r, 1000));
    }
    proxy.mode = 'pass';
    await mineUntil(() => allConfirmed(wallets.map((w) => w.id), 3), 30_000, 'deposits credited after the outage');
    for (const w of wallets) expect(await credits(w.id)).toBe(1);
    expect(workers.slice(0, 2).some((w) => /scan step failed/.test(w.output()))).toBe(true);
    // The metrics tell it: the node errors by kind, and the scanning worker's head, cursor and lag per network.
    const metrics = await Promise.all(workerPorts.slice(0, 2).map(async (p) => (await fetch(`http://127.0.0.1:${p}/metrics`)).text()));
    const scanning = metrics.find((m) => /chain_node_errors_total\{[^}]*network="ETH_TESTNET"[^}]*kind="unreachable"[^}]*\} [1-9]/.test(m));
    expect(scanning, metrics.join('\n').slice(0, 2000)).toBeDefined();
    expect(scanning).toMatch(/cursor_lag_blocks\{[^}]*network="ETH_TESTNET"[^}]*\} \d+/);
    expect(scanning).toMatch(/chain_head_block\{[^}]*network="ETH_TESTNET"[^}]*\} [1-9]/);
    expect(scanning).toMatch(/deposits\{[^}]*status="CONFIRMED"[^}]*\} [1-9]/);
  }, 90_000);

  it('credits every transfer exactly once when a chain-worker is SIGKILLed and restarted while they arrive', async () => {
    const wallets = [await wallet('USDT_ETH'), await wallet('USDT_ETH'), await wallet('USDT_ETH'), await wallet('USDT_ETH')];
    await chain.sendToken(chain.tokens[0]!, wallets[0]!.address, 52_000_000n);
    await chain.mine();
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    for (const w of wallets.slice(1)) {
      await chain.sendToken(chain.tokens[0]!, w.address, 53_000_000n);
      await chain.mine(2);
    }
    await startWorker();
    // The killed worker's lease (30 s) runs out first: on a loaded machine that and four confirmations take a while.
    await mineUntil(() => allConfirmed(wallets.map((w) => w.id), 4), 75_000, 'deposits credited after the restart');
    for (const w of wallets) expect(await credits(w.id)).toBe(1);
    await startWorker();
  }, 120_000);

  it('moves a deposit in an orphaned block to FAILED, never credited; a re-included transaction keeps its identity', async () => {
    const gone = await wallet('USDT_ETH');
    const back = await wallet('USDT_ETH');
    const backRaw = await signedTransfer(back.address, 55_000_000n);
    const goneTx = await chain.sendToken(chain.tokens[0]!, gone.address, 54_000_000n);
    await rpc(chain.anvil.rpcUrl, 'eth_sendRawTransaction', [backRaw]);
    await chain.mine();
    await poll(async () => ((await depositsOf(gone.id))[0] && (await depositsOf(back.id))[0] ? true : undefined), 10_000, 'both detected');
    const before = (await depositsOf(back.id))[0]!;
    await rpc(chain.anvil.rpcUrl, 'anvil_reorg', [1, []]); // the block with both transfers is replaced by an empty one
    await rpc(chain.anvil.rpcUrl, 'eth_sendRawTransaction', [backRaw]).catch(() => undefined); // re-included later
    await mineUntil(async () => (await depositsOf(back.id))[0]?.status === 'CONFIRMED' && (await depositsOf(gone.id))[0]?.status === 'FAILED', 30_000, 'reorg handled');
    const after = await depositsOf(back.id);
    expect(after).toHaveLength(1);
    expect(after[0]!.id).toBe(before.id);
    expect((await depositsOf(gone.id))[0]!.txid).toBe(goneTx);
    expect(await credits(gone.id)).toBe(0);
  }, 60_000);

  it('reverses a credit removed by a reorg deeper than its confirmations; the ledger check reports zero differences', async () => {
    const w = await wallet('USDT_ETH');
    await chain.sendToken(chain.tokens[0]!, w.address, 56_000_000n);
    await mineUntil(async () => (await depositsOf(w.id))[0]?.status === 'CONFIRMED', 20_000, 'credited');
    // Let the scanners read two more blocks, then replace every block from the deposit's to the head. The
    // depth is read, not assumed: on a loaded machine mineUntil mines more blocks before the credit is seen.
    await chain.mine(2);
    await new Promise((r) => setTimeout(r, 1000));
    const [deposit] = await sql<{ block: string }>(`select block_number::text as block from deposits where wallet_id = ?`, [w.id]);
    const head = BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_blockNumber', []));
    const depth = Number(head - BigInt(deposit!.block)) + 1;
    expect(depth).toBeGreaterThan(2); // deeper than the 2 confirmations
    await rpc(chain.anvil.rpcUrl, 'anvil_reorg', [depth, []]);
    await mineUntil(async () => (await depositsOf(w.id))[0]?.status === 'FAILED', 20_000, 'credit reversed');
    const reversal = await sql<{ n: string }>(`select count(*)::text as n from journal_entries where reference = ?`, [`deposit:${(await depositsOf(w.id))[0]!.id}:reversal`]);
    expect(reversal[0]!.n).toBe('1');
    const check = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url), ['ledger', 'check', '--json']);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, unbalanced_entries: [], balance_mismatches: [], negative_balances: [] });
  }, 60_000);
});

/** anvil's account #2: the sender of the transaction sent again after a reorg. */
const SECOND_KEY: Hex = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

/** A signed raw token transfer from account #2 (its mint mined first), so the same transaction can be sent again after a reorg. */
async function signedTransfer(to: string, amount: bigint): Promise<Hex> {
  const account = privateKeyToAccount(SECOND_KEY);
  const wallet = createWalletClient({
    account,
    transport: http(chain.anvil.rpcUrl),
    chain: { id: 11155111, name: 'test', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [chain.anvil.rpcUrl] } } },
  });
  const abi = parseAbi(['function mint(address to, uint256 value) returns (bool)', 'function transfer(address to, uint256 value) returns (bool)']);
  await wallet.writeContract({ address: chain.tokens[0]!, abi, functionName: 'mint', args: [account.address, amount], gas: 100_000n });
  await chain.mine();
  const nonce = Number(BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_getTransactionCount', [account.address, 'pending'])));
  const request = await wallet.prepareTransactionRequest({
    to: chain.tokens[0]!,
    data: (await import('viem')).encodeFunctionData({ abi, functionName: 'transfer', args: [to as `0x${string}`, amount] }),
    gas: 100_000n,
    nonce,
  });
  return wallet.signTransaction(request);
}
