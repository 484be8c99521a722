// Chaos (issue 18, `npm run test:chaos`): the three service processes run as
// OS processes on their own PostgreSQL and local chains, under a steady load
// of on-chain deposits (USDT_ETH, ETH, USDT_TRON), withdrawals (some
// cancelled at once) and webhook traffic (a receiver that sometimes answers
// 500). The chains are behind the provider imitation (issue 30): a share of
// the calls is served by a backend 1–3 blocks behind, a sibling fork (a
// reorg between two reads), a 429 or a dropped connection, as a hosted
// provider's pool does. Meanwhile the run SIGKILLs the chain-worker, the dispatcher and the
// api again and again (a supervisor here restarts them, as `npm start` and a
// deployment do), restarts PostgreSQL once, makes the ETH node unreachable
// for 30 s, lets it answer 429 for a minute, and empties the gas tank while
// a sweep waits for gas, then tops it up. Then the load stops, the service
// settles, and the invariants are checked against the chains and the
// database, not against what the service says of itself:
// - every on-chain deposit is one deposit row, credited by one entry, swept;
// - every accepted withdrawal is on chain exactly once (its fresh destination
//   holds exactly the net) or FAILED/CANCELLED (the destination holds
//   nothing), and the workspace's balances equal the credited deposits minus
//   the confirmed withdrawals;
// - `ops ledger check` reports zero differences, and `ops ledger reconcile`
//   finds the chain agreeing with the books (no deficit, nothing paid and refunded);
// - every event is delivered at least once, every delivery id always with
//   the same body;
// - no job or work item is stuck.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { TronWeb } from 'tronweb';
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, parseAbi, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { startEmbeddedPostgres, type EmbeddedDb } from '../../src/adapters/sandbox/embedded-postgres.js';
import { LOCAL_EVM_CHAINS, OUTSIDE_ACCOUNT_KEY, startLocalChains, type RunningLocalChains } from '../../src/adapters/sandbox/local-chains.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { prepareDatabase } from '../../src/bootstrap/prepare-database.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { Amount } from '../../src/domain/money/amount.js';
import { baseChainOf, type Asset } from '../../src/domain/money/networks.js';
import { EVENT_NAMES } from '../../src/domain/webhooks/events.js';
import { WalletClient } from '../../src/sdk/client.js';
import { WalletApiError } from '../../src/sdk/errors.js';
import { freePort, freePortBlock } from '../support/free-port.js';
import { TEST_SEED } from '../support/harness.js';
import { runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';
import { startProviderImitation, type ProviderImitation } from '../../src/adapters/sandbox/provider-imitation.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { removeDataDir } from '../support/data-dir.js';

const KEY = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
/** Decimal string to base units; zero allowed. */
const units = (decimal: string, asset: Asset) => Amount.parse(decimal, asset, 'amount', { allowZero: true }).units;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => process.stdout.write(`[chaos ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

let dataDir: string;
let pgPort: number;
let database: EmbeddedDb;
let databaseUrl: string;
let chains: RunningLocalChains;
let proxy: RpcProxy;
let ethPool: ProviderImitation;
let tronPool: ProviderImitation;
let receiver: Receiver;
let client: WalletClient;
let baseEnv: NodeJS.ProcessEnv;
let stopping = false;
/** The receiver fails some first attempts while this holds. */
let failing = true;

/** A supervised service process: restarted a second after it exits, as `npm start` does. */
interface Proc {
  name: 'api' | 'chain-worker' | 'dispatcher';
  env: NodeJS.ProcessEnv;
  current: Spawned | null;
  starts: number;
  /** The last lines of every run, for the report of a failure. */
  tail: string;
  /** All output of the runs that ended. */
  logs: string[];
}
const procs: Proc[] = [];

function launch(p: Proc): void {
  const s = spawnEntry(`src/bootstrap/${p.name}.ts`, p.env);
  p.current = s;
  p.starts++;
  s.child.on('exit', (code, signal) => {
    p.logs.push(s.output());
    p.tail = `${p.tail}\n--- ${p.name} run ${p.starts} exited (${code ?? signal})\n${s.output().slice(-4000)}`.slice(-12000);
    p.current = null;
    if (!stopping) setTimeout(() => !stopping && launch(p), 1000);
  });
}

function kill(name: Proc['name']): void {
  const p = procs.find((x) => x.name === name)!;
  log(`SIGKILL ${name}`);
  p.current?.child.kill('SIGKILL');
}

async function query<T extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query<T>(text, params)).rows;
  } finally {
    await c.end();
  }
}

/** Waits until `ready` holds, or fails naming what did not settle. */
async function until(what: string, timeoutMs: number, ready: () => Promise<string | null>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string | null;
  for (;;) {
    try {
      last = await ready();
    } catch (err) {
      last = `error: ${(err as Error).message}`;
    }
    if (last === null) return;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s: ${last}`);
    await sleep(1000);
  }
}

// --- The outside world: deposits sent on chain by someone else. ---
interface SentDeposit {
  asset: Asset;
  txid: string;
  to: string;
  units: bigint;
}
const sent: SentDeposit[] = [];

interface AcceptedWithdrawal {
  id: string;
  asset: Asset;
  destination: Address;
  amount: string;
  net: string;
  cancelAsked: boolean;
}
const accepted: AcceptedWithdrawal[] = [];
let refusedWithdrawals = 0;

const ethChain = () => ({
  id: 11155111,
  name: 'ETH_TESTNET',
  nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [chains.rpcUrls.ETH_TESTNET!] } },
});
const outside = privateKeyToAccount(OUTSIDE_ACCOUNT_KEY);
const usdtEth = () => chains.file.networks.ETH_TESTNET!.tokens.USDT_ETH as Address;

async function tokenBalance(token: Address, owner: string): Promise<bigint> {
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [owner as Address] });
  return BigInt(await rpc<string>(chains.rpcUrls.ETH_TESTNET!, 'eth_call', [{ to: token, data }, 'latest']));
}

async function sendEthDeposit(asset: 'USDT_ETH' | 'ETH', to: string, units: bigint): Promise<void> {
  const wallet = createWalletClient({ account: outside, transport: http(chains.rpcUrls.ETH_TESTNET!), chain: ethChain() });
  const txid =
    asset === 'ETH'
      ? await wallet.sendTransaction({ to: to as Address, value: units })
      : await wallet.writeContract({ address: usdtEth(), abi: erc20Abi, functionName: 'transfer', args: [to as Address, units] });
  const receipt = await createPublicClient({ transport: http(chains.rpcUrls.ETH_TESTNET!) }).waitForTransactionReceipt({ hash: txid, pollingInterval: 250 });
  expect(receipt.status).toBe('success');
  sent.push({ asset, txid: txid.toLowerCase(), to, units });
}

async function sendTronDeposit(to: string, units: bigint): Promise<void> {
  const net = chains.file.networks.TRON_TESTNET!;
  const tw = new TronWeb({ fullHost: net.rpc_url, privateKey: net.outside_account.private_key });
  const from = net.outside_account.address;
  const token = net.tokens.USDT_TRON!;
  const run = async (fn: string, params: { type: string; value: string }[]): Promise<string> => {
    const built = await tw.transactionBuilder.triggerSmartContract(token, fn, { feeLimit: 100_000_000 }, params, from);
    const result = await tw.trx.sendRawTransaction(await tw.trx.sign(built.transaction));
    if (!result.result) throw new Error(`the TRON node refused ${fn}`);
    for (let i = 0; i < 150; i++) {
      const info = (await tw.trx.getTransactionInfo(built.transaction.txID)) as { blockNumber?: number; receipt?: { result?: string } };
      if (info.blockNumber !== undefined) {
        if (info.receipt?.result !== 'SUCCESS') throw new Error(`${fn} reverted`);
        return built.transaction.txID;
      }
      await sleep(200);
    }
    throw new Error(`${fn} was not included`);
  };
  await run('mint(address,uint256)', [{ type: 'address', value: from }, { type: 'uint256', value: units.toString() }]);
  const txid = await run('transfer(address,uint256)', [{ type: 'address', value: to }, { type: 'uint256', value: units.toString() }]);
  sent.push({ asset: 'USDT_TRON', txid: txid.toLowerCase(), to, units });
}

/**
 * A withdrawal as a careful integrator makes it: one idempotency key, asked
 * again (re-signed) until a definite answer, however long the api is down.
 */
async function withdraw(asset: 'USDT_ETH' | 'ETH', amount: string, cancel: boolean): Promise<void> {
  const destination = privateKeyToAccount(generatePrivateKey()).address;
  const idempotencyKey = randomUUID();
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      const w = await client.createWithdrawal({ chain: 'ETH', asset, amount, destination_address: destination }, { idempotencyKey });
      accepted.push({ id: w.id, asset, destination, amount: w.amount, net: w.net_amount, cancelAsked: cancel });
      if (cancel) await client.cancelWithdrawal(w.id).catch(() => undefined); // too late is a fine answer
      return;
    } catch (err) {
      const status = err instanceof WalletApiError ? err.status : null;
      if (status !== null && status >= 400 && status < 500 && status !== 429 && status !== 409) {
        refusedWithdrawals++; // e.g. the balance is short: refused, nothing locked
        return;
      }
      if (Date.now() > deadline) throw err;
      await sleep(500);
    }
  }
}

/** The steady load until `stop`: a deposit about every 2 s, a withdrawal about every 4 s once there is money. */
async function load(stop: { now: boolean }, wallets: { asset: Asset; address: string }[]): Promise<void> {
  let i = 0;
  while (!stop.now) {
    i++;
    const w = wallets[i % wallets.length]!;
    try {
      if (w.asset === 'USDT_TRON') await sendTronDeposit(w.address, 20_000_000n);
      else if (w.asset === 'ETH') await sendEthDeposit('ETH', w.address, 5n * 10n ** 16n);
      else {
        // A fresh deposit address each time, as each end-user gets: every sweep of it needs a gas top-up.
        const fresh = await client.createWallet({ chain: 'ETH', asset: 'USDT_ETH' }).catch(() => null);
        await sendEthDeposit('USDT_ETH', fresh?.address ?? w.address, 60_000_000n);
      }
    } catch (err) {
      log(`deposit send failed (the outside world's problem, not counted): ${(err as Error).message.split('\n')[0]}`);
    }
    if (i % 2 === 0) {
      const asset = i % 4 === 0 ? 'ETH' : 'USDT_ETH';
      await withdraw(asset, asset === 'ETH' ? '0.02' : '20', i % 10 === 0);
    }
    await sleep(1000);
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-chaos-'));
  pgPort = await freePort();
  database = await startEmbeddedPostgres({ dataDir, port: pgPort });
  databaseUrl = database.url;
  await prepareDatabase(databaseUrl);

  const signer = new LocalHdSigner(TEST_SEED);
  const [ethPort, tronPort] = [await freePort(), await freePort()];
  chains = await startLocalChains({
    dataDir,
    host: '127.0.0.1',
    specs: [{ ...LOCAL_EVM_CHAINS[0]!, port: ethPort }],
    tronPort,
    serviceAddresses: (network) => Promise.all((['gasTank', 'treasury', 'faucet'] as const).map((r) => signer.deriveAddress(baseChainOf(network), servicePath(network, r)))),
  });
  // The outside world's stablecoins for its deposits.
  const minter = createWalletClient({ account: outside, transport: http(chains.rpcUrls.ETH_TESTNET!), chain: ethChain() });
  const minted = await minter.writeContract({ address: usdtEth(), abi: parseAbi(['function mint(address to, uint256 value) returns (bool)']), functionName: 'mint', args: [outside.address, 10n ** 15n] });
  await createPublicClient({ transport: http(chains.rpcUrls.ETH_TESTNET!) }).waitForTransactionReceipt({ hash: minted, pollingInterval: 250 });

  proxy = await startRpcProxy(chains.rpcUrls.ETH_TESTNET!);
  // The providers' pools in front: ETH behind the fault proxy, TRON in front of the stand-in.
  ethPool = await startProviderImitation({ kind: 'evm', target: proxy.url, behaviours: ['pool'], share: 0.3, seed: 30 });
  tronPool = await startProviderImitation({ kind: 'tron', target: chains.rpcUrls.TRON_TESTNET!, behaviours: ['lagging-backend', 'trongrid-429', 'dropped-connection'], share: 0.3, seed: 31 });
  // While the load runs, every fifth delivery fails its first attempt (retried a minute later, same id).
  const seen = new Set<string>();
  receiver = await startReceiver((n, r) => {
    const id = String(r.headers['x-service-delivery']);
    const first = !seen.has(id);
    seen.add(id);
    return first && failing && n % 5 === 0 ? 500 : 200;
  });

  const port = await freePortBlock(3);
  const { DATABASE_URL: _u, EMBEDDED_PG_PORT: _p, MASTER_SEED: _s, ...clean } = process.env;
  baseEnv = {
    ...clean,
    NODE_ENV: 'development',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    SECRET_ENCRYPTION_KEY: KEY,
    PORT: String(port),
    CHAIN_WORKER_PORT: String(port + 1),
    DISPATCHER_PORT: String(port + 2),
    LOG_LEVEL: 'info',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_LEASE_SECONDS: '15',
    WEBHOOK_TICK_MS: '1000',
    SCAN_LEASE_SECONDS: '10',
    ETH_TESTNET_RPC_URL: ethPool.url,
    TRON_TESTNET_RPC_URL: tronPool.url,
    ETH_TESTNET_CONFIRMATIONS: '2',
    TRON_TESTNET_CONFIRMATIONS: '2',
    ETH_TESTNET_START_BLOCK: '0',
    TRON_TESTNET_START_BLOCK: '0',
    TRANSFER_REPLACE_AFTER_SECONDS: '20',
  };
  for (const name of ['api', 'chain-worker', 'dispatcher'] as const) {
    // Only the chain-worker signs, so only it has the seed (as `npm start` gives it).
    procs.push({ name, env: name === 'chain-worker' ? { ...baseEnv, MASTER_SEED: TEST_SEED } : baseEnv, current: null, starts: 0, tail: '', logs: [] });
  }
  procs.forEach(launch);
  for (const p of procs) await p.current!.waitFor(/listening/, 60_000);

  const created = await runEntry('src/bootstrap/ops.ts', { ...baseEnv, MASTER_SEED: TEST_SEED }, ['workspace', 'create', '--name', 'chaos', '--json']);
  expect(created.code, created.stderr + created.stdout).toBe(0);
  const ws = JSON.parse(created.stdout) as { test_key: { key_id: string; secret: string } };
  client = new WalletClient({
    baseUrl: `http://127.0.0.1:${port}`,
    keyId: ws.test_key.key_id,
    secret: ws.test_key.secret,
    maxRetries: 6,
    retryBaseDelayMs: 300,
    retryMaxDelayMs: 3000,
    timeoutMs: 15_000,
  });
  await client.createWebhookEndpoint({ url: receiver.url, events: [...EVENT_NAMES] });
}, 240_000);

afterAll(async () => {
  stopping = true;
  for (const p of procs) p.current?.child.kill('SIGKILL');
  await receiver?.close();
  await ethPool?.close();
  await tronPool?.close();
  await proxy?.close();
  await chains?.stop().catch(() => undefined);
  await database?.stop().catch(() => undefined);
  if (dataDir) removeDataDir(dataDir);
});

describe('chaos', () => {
  it('keeps every invariant through process kills, a PostgreSQL restart, an unreachable and a rate-limiting node and an empty gas tank', async () => {
    const wallets: { asset: Asset; address: string }[] = [];
    for (const asset of ['USDT_ETH', 'USDT_ETH', 'ETH', 'USDT_ETH', 'ETH', 'USDT_TRON'] as const) {
      const w = await client.createWallet({ chain: asset === 'USDT_TRON' ? 'TRON' : 'ETH', asset });
      wallets.push({ asset, address: w.address });
    }
    const stop = { now: false };
    const loading = load(stop, wallets);
    try {
      // Warm up: the first deposits are credited before anything breaks.
      await until('a first credited deposit', 90_000, async () =>
        (await query(`select 1 from deposits where status in ('CONFIRMED','SWEPT') limit 1`)).length ? null : 'none yet',
      );
      for (const name of ['chain-worker', 'dispatcher', 'api'] as const) {
        kill(name);
        await sleep(5000);
      }
      // The gas tank empties while a sweep waits for its top-up; it is topped up once two chain-worker runs have found it empty.
      const gasTank = await new LocalHdSigner(TEST_SEED).deriveAddress('ETH', servicePath('ETH_TESTNET', 'gasTank'));
      await until('a USDT_ETH sweep in progress', 60_000, async () =>
        (await query(`select 1 from sweeps where network = 'ETH_TESTNET' and asset = 'USDT_ETH' and status in ('WAITING_GAS','TOPPING_UP') limit 1`)).length ? null : 'none yet',
      );
      // Waits for what the chain-worker logs, across its runs: the fault is seen, not assumed.
      const worker = procs.find((p) => p.name === 'chain-worker')!;
      const said = (text: string) => [...worker.logs, worker.current?.output() ?? ''].join('\n').split(text).length - 1;
      log('gas tank emptied');
      await rpc(chains.rpcUrls.ETH_TESTNET!, 'anvil_setBalance', [gasTank, '0x0']);
      await until('the chain-worker to see the empty gas tank', 90_000, async () => (said('gas tank too low for a sweep top-up') >= 1 ? null : 'not yet'));
      kill('chain-worker'); // it dies while sweeps wait for gas; the next one finds the tank empty too
      await until('the restarted chain-worker to see the empty gas tank', 90_000, async () => (said('gas tank too low for a sweep top-up') >= 2 ? null : 'not yet'));
      await rpc(chains.rpcUrls.ETH_TESTNET!, 'anvil_setBalance', [gasTank, `0x${(10n ** 21n).toString(16)}`]);
      log('gas tank topped up');
      await until('the chain-worker to see the refill', 90_000, async () => (said('gas tank refilled: sweeps resume') >= 1 ? null : 'not yet'));

      // 30 s without the ETH node; PostgreSQL restarts meanwhile, the dispatcher dies.
      log('the ETH node is unreachable for 30 s');
      proxy.mode = 'down';
      await sleep(4000);
      log('PostgreSQL stops');
      await database.stop();
      await sleep(4000);
      database = await startEmbeddedPostgres({ dataDir, port: pgPort });
      log('PostgreSQL is back');
      await sleep(10_000);
      kill('dispatcher');
      await sleep(12_000);
      // A minute of 429s; every process dies once meanwhile.
      log('the ETH node answers 429 for a minute');
      proxy.mode = '429';
      for (const name of ['chain-worker', 'api', 'dispatcher'] as const) {
        await sleep(15_000);
        kill(name);
      }
      await sleep(15_000);
      proxy.mode = 'pass';
      log('the ETH node is back');
      await sleep(8000);
      for (const name of ['chain-worker', 'dispatcher', 'api'] as const) kill(name);
      await sleep(8000);
    } finally {
      stop.now = true;
      await loading;
      failing = false;
    }
    log(`load stopped: ${sent.length} deposits sent, ${accepted.length} withdrawals accepted, ${refusedWithdrawals} refused`);
    expect(sent.length).toBeGreaterThan(20);
    expect(accepted.length).toBeGreaterThan(5);

    let asked = 0;
    // The service settles: every deposit swept, every withdrawal final, every delivery delivered, nothing in flight.
    try {
      await until('the service to settle', 240_000, async () => {
        const deposits = await query<{ txid: string; status: string }>(`select txid, status from deposits`);
        const swept = new Set(deposits.filter((d) => d.status === 'SWEPT').map((d) => d.txid));
        const unswept = sent.filter((s) => !swept.has(s.txid)).length;
        const open = await query<{ n: string }>(
          `select (select count(*) from withdrawals where status not in ('CONFIRMED','FAILED','CANCELLED'))
                + (select count(*) from webhook_deliveries where status <> 'DELIVERED')
                + (select count(*) from sweeps where status not in ('SWEPT','FAILED'))
                + (select count(*) from outgoing_transfers where status not in ('CONFIRMED','FAILED')) as n`,
        );
        const state = unswept === 0 && open[0]!.n === '0' ? null : `${unswept} deposits not swept, ${open[0]!.n} withdrawals/deliveries/sweeps/transfers open`;
        if (state && ++asked % 15 === 0) log(`settling: ${state}`);
        return state;
      });
    } catch (err) {
      for (const p of procs) log(`${p.name} (${p.starts} starts), current output:\n${p.current?.output().slice(-3000) ?? '(not running)'}`);
      const open = await query(
        `select 'withdrawals' as t, status, count(*)::int as n from withdrawals group by status
         union all select 'deliveries', status, count(*)::int from webhook_deliveries group by status
         union all select 'sweeps ' || network || ' ' || asset, status, count(*)::int from sweeps group by network, asset, status
         union all select 'transfers ' || network || ' ' || kind, status, count(*)::int from outgoing_transfers group by network, kind, status
         union all select 'deposits ' || asset, status, count(*)::int from deposits group by asset, status order by 1, 2`,
      ).catch((e: unknown) => [String(e)]);
      log(`what is open, by table and status:\n${JSON.stringify(open, null, 1)}`);
      // What the tails above may have lost: every run's warnings (an item that could not advance, a failed step), and
      // the open transfers with their nonces and attempts (a gap or a refused replacement shows there).
      const lines = procs.flatMap((p) => [...p.logs, p.current?.output() ?? ''].join('\n').split('\n'));
      const warned = [...new Set(lines.filter((l) => /could not advance|step failed|refused/.test(l)).map((l) => l.replace(/"time":\d+,/, '')))];
      log(`warnings of every run (${warned.length} distinct, the last 40):\n${warned.slice(-40).join('\n')}`);
      const transfers = await query(
        `select t.network, t.kind, t.status, t.from_address, t.nonce::text as nonce, t.requested_at,
                (select json_agg(json_build_object('txid', a.txid, 'max_fee', a.max_fee_per_gas::text, 'refused', a.refused_at) order by a.seq)
                   from transfer_attempts a where a.transfer_id = t.id) as attempts
           from outgoing_transfers t where t.status not in ('CONFIRMED', 'FAILED') order by t.network, t.from_address, t.nonce limit 40`,
      ).catch((e: unknown) => [String(e)]);
      log(`open transfers (the first 40 by sender and nonce):\n${JSON.stringify(transfers, null, 1)}`);
      throw err;
    }

    // 1. Every on-chain deposit: one row, one credit, swept.
    const rows = await query<{ id: string; txid: string; status: string; asset: string; net_amount: string }>(
      `select id, txid, status, asset, net_amount::text from deposits`,
    );
    for (const s of sent) {
      const mine = rows.filter((r) => r.txid === s.txid);
      expect(mine.map((r) => r.status), s.txid).toEqual(['SWEPT']);
      const credits = await query(`select 1 from journal_entries where kind = 'DEPOSIT_CREDIT' and reference like $1`, [`deposit:${mine[0]!.id}:%`]);
      expect(credits.length, `credits of ${s.txid}`).toBe(1);
    }
    expect(rows.length).toBe(sent.length); // nothing credited that was not sent

    // 2. Every accepted withdrawal: on chain exactly once, or FAILED/CANCELLED with nothing sent.
    const final = new Map<string, string>();
    for (const w of accepted) {
      const status = (await client.getWithdrawal(w.id)).status;
      final.set(w.id, status);
      expect(['CONFIRMED', 'FAILED', 'CANCELLED'], w.id).toContain(status);
      const onChain = w.asset === 'ETH' ? BigInt(await rpc<string>(chains.rpcUrls.ETH_TESTNET!, 'eth_getBalance', [w.destination, 'latest'])) : await tokenBalance(usdtEth(), w.destination);
      expect(onChain, `${w.id} (${status}) at ${w.destination}`).toBe(status === 'CONFIRMED' ? Amount.parse(w.net, w.asset).toChainUnits() : 0n);
    }
    // ... and what the workspace holds is what it was credited minus what it withdrew.
    for (const asset of ['USDT_ETH', 'ETH', 'USDT_TRON'] as const) {
      const credited = rows.filter((r) => r.asset === asset).reduce((t, r) => t + BigInt(r.net_amount), 0n);
      const withdrawn = accepted.filter((w) => w.asset === asset && final.get(w.id) === 'CONFIRMED').reduce((t, w) => t + units(w.amount, asset), 0n);
      const chain = asset === 'USDT_TRON' ? 'TRON' : 'ETH';
      const balance = (await client.getBalances({ chain, asset })).data[0]!;
      expect([units(balance.available, asset), units(balance.locked, asset)], asset).toEqual([credited - withdrawn, 0n]);
    }

    // 3. The ledger check: zero differences.
    const check = await runEntry('src/bootstrap/ops.ts', { ...baseEnv, MASTER_SEED: TEST_SEED }, ['ledger', 'check', '--json']);
    expect(JSON.parse(check.stdout), check.stderr).toMatchObject({ ok: true, unbalanced_entries: [], balance_mismatches: [], negative_balances: [] });
    // ... and the books agree with the chain: no deficit on either network, no payout both sent and refunded.
    const reconciled = await runEntry('src/bootstrap/ops.ts', { ...baseEnv, MASTER_SEED: TEST_SEED }, ['ledger', 'reconcile', '--json']);
    const report = JSON.parse(reconciled.stdout) as { ok: boolean; networks: { network: string; involved: unknown[]; assets: { asset: string; verdict: string; difference: string }[] }[] };
    expect(report.networks.map((n) => n.network).sort(), reconciled.stderr).toEqual(['ETH_TESTNET', 'TRON_TESTNET']);
    for (const n of report.networks) {
      expect(n.involved, n.network).toEqual([]);
      for (const a of n.assets) expect(a.verdict, `${n.network} ${a.asset} ${a.difference}`).not.toBe('deficit');
    }
    // The pools did misbehave.
    expect(ethPool.answeredBy.get('lagging-backend') ?? 0).toBeGreaterThan(0);
    expect(tronPool.answeredBy.get('lagging-backend') ?? 0).toBeGreaterThan(0);

    // 4. Every event delivered at least once; a delivery id always carries the same body.
    const deliveries = await query<{ id: string; status: string }>(`select id, status from webhook_deliveries`);
    const events = await query<{ n: string }>(`select count(*) as n from webhook_events`);
    expect(deliveries.length).toBe(Number(events[0]!.n));
    for (const d of deliveries) {
      const got = receiver.byDelivery(d.id);
      expect(got.length, `delivery ${d.id}`).toBeGreaterThanOrEqual(1);
      expect(new Set(got.map((r) => r.rawBody)).size, `bodies of ${d.id}`).toBe(1);
    }
    const confirmedEvents = receiver.received.filter((r) => (JSON.parse(r.rawBody) as { event: string }).event === 'DEPOSIT_CONFIRMED');
    const confirmedIds = new Set(confirmedEvents.map((r) => (JSON.parse(r.rawBody) as { data: { deposit_id: string } }).data.deposit_id));
    for (const r of rows) expect(confirmedIds.has(r.id), `DEPOSIT_CONFIRMED of ${r.id}`).toBe(true);

    // 5. No job stuck: nothing due more than a minute ago is still waiting or running.
    const stuck = await query(
      `select name, state, start_after, started_on from pgboss.job
        where (state in ('created','retry') and start_after < now() - interval '1 minute')
           or (state = 'active' and started_on < now() - interval '2 minutes')`,
    );
    expect(stuck).toEqual([]);
    log(`settled: ${sent.length} deposits credited once and swept, ${[...final.values()].filter((s) => s === 'CONFIRMED').length} withdrawals confirmed, ${[...final.values()].filter((s) => s !== 'CONFIRMED').length} failed or cancelled, ${deliveries.length} deliveries, ${receiver.received.length} requests received; starts: ${procs.map((p) => `${p.name} ${p.starts}`).join(', ')}`);
  }, 900_000);
});
