// Withdrawal figures for `npm run bench` (issue 16), each next to a baseline
// from the same run on the same machine:
// - signed POST /v2/withdrawals over real HTTP to an api running as its own
//   process (as deployed), spread over 50 workspaces (test keys, each request
//   with its own Idempotency-Key), concurrency 20: requests/s and p50/p99;
//   baseline: raw `pg` running every statement the request runs, in its
//   order (the admission, which also reads the network switches, then the
//   transaction: the idempotency lock, lookup and record, a savepoint, the
//   frozen flag, the internal-address check, the lock's journal entry with
//   its balance moves and postings in one call, the withdrawal), on a pool of 10
//   connections at the same concurrency. What the ratio shows is the cost of
//   everything but the SQL: HTTP, signing, validation, the ORM, the code.
// - create to broadcast, p50/p99: withdrawals requested at a steady rate while
//   a chain-worker process sends them on a local anvil, from the request to
//   the payout's broadcast; baseline: viem alone signing and sending the same
//   token transfer from a local account, from the decision to the node's
//   answer.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { createWalletClient, encodeFunctionData, erc20Abi, http, parseAbi, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { ChainAddressCodec } from '../src/adapters/chains/address-codec.js';
import { rpc, startAnvil } from '../src/adapters/sandbox/anvil.js';
import { deploySandboxTokens } from '../src/adapters/sandbox/contracts/sandbox-token.js';
import { freePort } from '../src/adapters/sandbox/local-ports.js';
import { LocalHdSigner } from '../src/adapters/signer/hd-signer.js';
import { CreateWorkspace, type CreatedWorkspace } from '../src/application/workspaces/create-workspace.js';
import { TOKENS } from '../src/application/tokens.js';
import { startApi } from '../src/bootstrap/api.js';
import type { Config } from '../src/bootstrap/config.js';
import { formatPath, servicePath } from '../src/domain/custody/derivation.js';
import { creditDeposit } from '../src/domain/ledger/entries.js';
import { Amount } from '../src/domain/money/amount.js';
import type { UnitOfWork } from '../src/domain/ports.js';
import { authHeaders } from '../src/sdk/signing.js';
import type { BenchRow } from './webhooks.js';
import { CREDENTIAL_VERSION_SQL } from '../src/adapters/persistence/credential-version.js';

const WORKSPACES = 50;
const REQUESTS = 2000;
const CONCURRENCY = 20;
const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const DESTINATION_ON_TRON = new ChainAddressCodec().fromAccountId('TRON', DESTINATION.slice(2).toLowerCase());
/** Create to broadcast: this many withdrawals, one every PACE_MS. */
const PAYOUTS = 200;
const PACE_MS = 50;
const MINT = parseAbi(['function mint(address to, uint256 value) returns (bool)']);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(total: number, one: (i: number) => Promise<boolean>): Promise<{ perSecond: number; p50: number; p99: number; failed: number }> {
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        if (!(await one(i))) failed++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: total / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), failed };
}

/** One of the service's processes, as `npm start` runs it; resolves once it logs `ready`. */
export async function startProcess(entry: string, env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; stop: () => Promise<void> }> {
  // BENCH_CPU_PROF=DIR: each process writes a CPU profile there (node --cpu-prof) when it stops.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // BENCH_LOG_DIR=DIR: each process's output is kept there, in a file named after its entry.
  const logTo = process.env.BENCH_LOG_DIR ? join(process.env.BENCH_LOG_DIR, `${basename(entry, '.ts')}.log`) : null;
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', entry], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} not ready in 60 s:\n${out.slice(-2000)}`)), 60_000);
    const seen = (d: Buffer) => {
      out = (out + d.toString()).slice(-8000);
      if (logTo) appendFileSync(logTo, d);
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    child.once('exit', (code) => reject(new Error(`${entry} exited (${code}):\n${out.slice(-2000)}`)));
  });
  return {
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function benchWithdrawals(config: Config, env: Record<string, string>, seed: string, log: (line: string) => void): Promise<BenchRow[]> {
  // In this process: the setup (workspaces, balances) and the baselines. The measured api is its own process.
  const setup = await startApi({ ...config, ports: { ...config.ports, api: 0 } });
  const apiPort = await freePort();
  const service = await startProcess('src/bootstrap/api.ts', { ...env, LOG_LEVEL: 'info', PORT: String(apiPort) }, /api listening/);
  const base = `http://127.0.0.1:${apiPort}`;
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
  const stops: (() => Promise<void>)[] = [service.stop];
  try {
    const uow = setup.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const workspaces: CreatedWorkspace[] = [];
    for (let i = 0; i < WORKSPACES; i++) {
      const ws = await setup.infra.container.resolve(CreateWorkspace).execute({ name: `withdrawal-bench-${i}` });
      await uow.run((tx) =>
        tx.ledger.post(
          creditDeposit({ id: randomUUID(), network: 'ETH_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: ws.workspaceId, gross: Amount.parse('1000000', 'USDT_ETH'), fee: Amount.zero('USDT_ETH') }),
        ),
      );
      workspaces.push(ws);
    }
    log(`withdrawal bench: ${WORKSPACES} workspaces funded`);
    const failures = new Set<string>();
    const post = async (i: number, key: string, amount = '10') => {
      const ws = workspaces[i % WORKSPACES]!;
      // A query that differs per request: two identical requests signed in the same second would be a replay.
      const path = `/v2/withdrawals?r=${key}`;
      const body = JSON.stringify({ chain: 'ETH', asset: 'USDT_ETH', amount, destination_address: DESTINATION });
      const res = await fetch(base + path, {
        method: 'POST',
        body,
        headers: { ...authHeaders(ws.testKey.keyId, { secret: ws.testKey.secret, method: 'POST', path, body }), 'Content-Type': 'application/json', 'Idempotency-Key': key },
      });
      const text = await res.text();
      if (res.status !== 201 && failures.size < 3) failures.add(`${res.status} ${text.slice(0, 120)}`);
      return res.status === 201;
    };
    await run(100, (i) => post(i, `warm-${i}`));
    // What a signed request costs before any work: the same api, a route that reads nothing.
    const bare = await run(REQUESTS, async (i) => {
      const ws = workspaces[i % WORKSPACES]!;
      const path = `/v2/chains?r=${i}`;
      const res = await fetch(base + path, { headers: authHeaders(ws.testKey.keyId, { secret: ws.testKey.secret, method: 'GET', path, body: '' }) });
      await res.text();
      return res.status === 200;
    });
    log(`signed GET /v2/chains (api process), concurrency ${CONCURRENCY}: ${bare.perSecond.toFixed(0)} req/s, p50 ${bare.p50.toFixed(1)} ms, p99 ${bare.p99.toFixed(1)} ms`);
    const measured = await run(REQUESTS, (i) => post(i, `bench-${i}`));
    log(
      `POST /v2/withdrawals (api process): ${REQUESTS} over ${WORKSPACES} workspaces, concurrency ${CONCURRENCY}: ${measured.perSecond.toFixed(0)} req/s, p50 ${measured.p50.toFixed(1)} ms, p99 ${measured.p99.toFixed(1)} ms (${measured.failed} not 201)`,
    );
    for (const f of failures) log(`  not 201: ${f}`);

    // Baseline: the same statements in one raw pg transaction each.
    // Both accounts of each workspace exist before the run (the api's run funded AVAILABLE), as they do for the api.
    for (const ws of workspaces) {
      await pool.query(
        `insert into ledger_accounts (owner, kind, network, asset, balance) values ($1, 'AVAILABLE', 'ETH_TESTNET', 'USDT_ETH', 0), ($1, 'LOCKED', 'ETH_TESTNET', 'USDT_ETH', 0)
         on conflict (owner, kind, network, asset) do nothing`,
        [ws.workspaceId],
      );
    }
    // The statements one signed, idempotent create runs, in its order: the admission (the kept key still as
    // read, replay guard, rate bucket, last use, the network switches), then the transaction (the idempotency claim: lock and lookup in one, a
    // savepoint, the frozen flag, the internal-address check, the lock's entry with its balance moves and postings
    // in one call, the withdrawal, the idempotency record).
    const raw = async (i: number) => {
      const ws = workspaces[i % WORKSPACES]!;
      const key = `raw-${i}`;
      const client = await pool.connect();
      try {
        // The key itself is kept by the api after its first read; admission checks it is still as read (ADR 0008).
        // Prepared, as the api prepares its admission (the other statements run unnamed in both).
        await client.query({
          name: 'raw_admission',
          text: `with cred as (
             select 1 from api_keys k left join workspaces w on w.id = k.workspace_id
             where k.key_id = $1 and ${CREDENTIAL_VERSION_SQL} is not null
           ), sig as (
             insert into request_signatures as s (key_id, signature, expires_at) select $1, $2, now() + interval '10 minutes' where exists (select 1 from cred)
             on conflict (key_id, signature) do update set expires_at = excluded.expires_at where s.expires_at <= now() returning 1
           ), bucket as (
             insert into rate_buckets as b (key_id, tokens, refilled_at, allowed) values ($1, 99999::float8, clock_timestamp(), true)
             on conflict (key_id) do update set tokens = least(100000::float8, b.tokens + 1) - 1, allowed = true, refilled_at = clock_timestamp()
             returning tokens, allowed
           ), touch as (
             update api_keys set last_used_at = now() where key_id = $1 and (last_used_at is null or last_used_at < now() - interval '60 seconds') returning 1
           )
           select exists (select 1 from cred) as current, (select count(*) from sig)::int as fresh, bucket.tokens, bucket.allowed,
                  (select coalesce(json_object_agg(network, enabled), '{}'::json) from network_switches)::text as switches from bucket`,
          values: [ws.testKey.keyId, randomUUID()],
        });
        await client.query('begin');
        await client.query(`select * from idempotency_claim($1, $2, 'test', 'POST', '/v2/withdrawals', $3, now())`, [`${ws.workspaceId}:${key}`, ws.workspaceId, key]);
        await client.query('savepoint a');
        await client.query(`select * from workspaces where id = $1 limit 1`, [ws.workspaceId]);
        await client.query(`select 1 from wallets where (address = $1 and network in ('ETH_MAINNET', 'ETH_TESTNET', 'BSC_MAINNET', 'BSC_TESTNET')) or (address = $2 and network in ('TRON_MAINNET', 'TRON_TESTNET')) limit 1`, [
          DESTINATION,
          DESTINATION_ON_TRON,
        ]);
        const entry = randomUUID();
        const id = randomUUID();
        // The lock: the entry, the two balance moves and their postings in one call, as the api posts it.
        const locked = await client.query<{ outcome: string }>(
          `select ledger_post($1::uuid, 'WITHDRAWAL_LOCK', $2, $3::uuid, 'ETH_TESTNET', 'USDT_ETH', now(), array[$3::text, $3::text], '{AVAILABLE,LOCKED}', '{ETH_TESTNET,ETH_TESTNET}',
             '{USDT_ETH,USDT_ETH}', '{-10000000,10000000}', '{true,true}') as outcome`,
          [entry, `withdrawal:${id}:lock`, ws.workspaceId],
        );
        if (locked.rows[0]?.outcome !== 'posted') throw new Error('not posted');
        await client.query(
          `insert into withdrawals (id, workspace_id, network, asset, amount, fee, net_amount, destination, status, requested_at, updated_at)
           values ($1, $2, 'ETH_TESTNET', 'USDT_ETH', 10000000, 5000000, 5000000, $3, 'PENDING', now(), now())`,
          [id, ws.workspaceId, DESTINATION],
        );
        await client.query('release savepoint a');
        await client.query(
          `insert into idempotency_keys (workspace_id, side, method, path, key, fingerprint, response_status, response_body, created_at, expires_at)
           values ($1, 'test', 'POST', '/v2/withdrawals', $2, 'f', 201, '{}', now(), now() + interval '1 day')
           on conflict (workspace_id, side, method, path, key) do update set fingerprint = excluded.fingerprint`,
          [ws.workspaceId, key],
        );
        await client.query('commit');
        return true;
      } catch {
        await client.query('rollback');
        return false;
      } finally {
        client.release();
      }
    };
    await run(100, (i) => raw(100_000 + i));
    const baseline = await run(REQUESTS, raw);
    log(`raw pg, the same 12 statements: ${baseline.perSecond.toFixed(0)} tx/s, p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms (${baseline.failed} failed)`);
    // The withdrawals of the throughput run are not sent: the create-to-broadcast run starts from none.
    await pool.query(`update withdrawals set status = 'CANCELLED', updated_at = now() where status = 'PENDING'`);

    // Create to broadcast: a local anvil with the sandbox tokens, the treasury funded, a chain-worker process.
    const anvil = await startAnvil({ port: await freePort(), chainId: 11155111, args: ['--gas-limit', '100000000'] });
    stops.push(() => anvil.stop());
    const [usdt] = await deploySandboxTokens(anvil.rpcUrl, [
      { name: 'Tether USD', symbol: 'USDT', decimals: 6 },
      { name: 'USD Coin', symbol: 'USDC', decimals: 6 },
      { name: 'Euro Coin', symbol: 'EURC', decimals: 6 },
    ]);
    const treasury = await new LocalHdSigner(seed).deriveAddress('ETH', servicePath('ETH_TESTNET', 'treasury'));
    const dev = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'; // anvil's unlocked account #0
    await rpc(anvil.rpcUrl, 'anvil_setBalance', [treasury, `0x${(10n ** 22n).toString(16)}`]);
    await rpc(anvil.rpcUrl, 'eth_sendTransaction', [{ from: dev, to: usdt, data: encodeFunctionData({ abi: MINT, functionName: 'mint', args: [treasury as Hex, 10n ** 15n] }) }]);
    const workerPort = await freePort();
    const worker = await startProcess(
      'src/bootstrap/chain-worker.ts',
      { ...env, LOG_LEVEL: 'info', CHAIN_WORKER_PORT: String(workerPort), ETH_TESTNET_RPC_URL: anvil.rpcUrl, ETH_TESTNET_START_BLOCK: '0', ETH_TESTNET_CONFIRMATIONS: '1' },
      /chain-worker listening/,
    );
    stops.unshift(worker.stop);
    const t0 = Date.now();
    for (let i = 0; i < PAYOUTS; i++) {
      const due = t0 + i * PACE_MS;
      if (due > Date.now()) await sleep(due - Date.now());
      void post(i, `payout-${i}`, '20');
    }
    let sent = 0;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(500)) {
      sent = Number((await pool.query<{ n: string }>(`select count(*)::text as n from withdrawals where idempotency_key like 'payout-%' and status in ('PROCESSING', 'CONFIRMING', 'CONFIRMED')`)).rows[0]!.n);
      if (sent >= PAYOUTS) break;
    }
    if (sent < PAYOUTS) throw new Error(`withdrawal bench: ${sent} of ${PAYOUTS} payouts broadcast in 2 minutes`);
    const { rows: waits } = await pool.query<{ ms: string }>(
      `select (extract(epoch from t.broadcast_at - w.requested_at) * 1000)::text as ms
         from withdrawals w join outgoing_transfers t on t.id = w.transfer_id where w.idempotency_key like 'payout-%'`,
    );
    const toBroadcast = waits.map((r) => Number(r.ms)).sort((a, b) => a - b);
    const { rows: split } = await pool.query<{ pick: string; send: string }>(
      `select (extract(epoch from t.requested_at - w.requested_at) * 1000)::text as pick, (extract(epoch from t.broadcast_at - t.requested_at) * 1000)::text as send
         from withdrawals w join outgoing_transfers t on t.id = w.transfer_id where w.idempotency_key like 'payout-%'`,
    );
    const pick = split.map((r) => Number(r.pick)).sort((a, b) => a - b);
    const send = split.map((r) => Number(r.send)).sort((a, b) => a - b);
    log(`  of which request to pick-up: p50 ${percentile(pick, 0.5).toFixed(0)} ms, p99 ${percentile(pick, 0.99).toFixed(0)} ms; pick-up to broadcast: p50 ${percentile(send, 0.5).toFixed(0)} ms, p99 ${percentile(send, 0.99).toFixed(0)} ms`);
    log(`create to broadcast (${PAYOUTS} withdrawals, one every ${PACE_MS} ms, chain-worker process): p50 ${percentile(toBroadcast, 0.5).toFixed(0)} ms, p99 ${percentile(toBroadcast, 0.99).toFixed(0)} ms`);

    // Baseline: viem alone, a local account signing and sending the same token transfer, one after another.
    const local = mnemonicToAccount(seed, { path: formatPath(servicePath('ETH_TESTNET', 'faucet')) as `m/44'/60'/${string}` });
    await rpc(anvil.rpcUrl, 'anvil_setBalance', [local.address, `0x${(10n ** 22n).toString(16)}`]);
    await rpc(anvil.rpcUrl, 'eth_sendTransaction', [{ from: dev, to: usdt, data: encodeFunctionData({ abi: MINT, functionName: 'mint', args: [local.address, 10n ** 15n] }) }]);
    const chain = { id: 11155111, name: 'bench', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [anvil.rpcUrl] } } };
    const wallet = createWalletClient({ account: local, transport: http(anvil.rpcUrl), chain });
    const direct: number[] = [];
    for (let i = 0; i < PAYOUTS; i++) {
      const t = performance.now();
      await wallet.writeContract({ address: usdt!, abi: erc20Abi, functionName: 'transfer', args: [DESTINATION, 15_000_000n] });
      direct.push(performance.now() - t);
    }
    direct.sort((a, b) => a - b);
    log(`viem alone, sign and send: p50 ${percentile(direct, 0.5).toFixed(1)} ms, p99 ${percentile(direct, 0.99).toFixed(1)} ms`);
    return [
      {
        name: `signed POST /v2/withdrawals to the api process over ${WORKSPACES} workspaces, concurrency ${CONCURRENCY} (auth, idempotency, checks, fee, lock, row)`,
        value: Math.round(measured.perSecond),
        unit: 'req/s',
        baseline: { name: 'raw pg running the same statements (the admission with the switches, the transaction), same concurrency', value: Math.round(baseline.perSecond) },
        ratio: Number((measured.perSecond / baseline.perSecond).toFixed(2)),
        goal: 'ratio >= 0.5',
      },
      {
        name: 'signed POST /v2/withdrawals p99 latency, concurrency 20',
        value: Number(measured.p99.toFixed(1)),
        unit: 'ms',
        baseline: { name: 'the raw pg transaction p99', value: Number(baseline.p99.toFixed(1)) },
        ratio: Number((measured.p99 / baseline.p99).toFixed(2)),
      },
      {
        name: `withdrawal create to broadcast p50 (${PAYOUTS} at ${1000 / PACE_MS}/s, chain-worker on a local anvil)`,
        value: Math.round(percentile(toBroadcast, 0.5)),
        unit: 'ms',
        baseline: { name: 'viem alone signing and sending the transfer, p50', value: Number(percentile(direct, 0.5).toFixed(1)) },
        ratio: Number((percentile(toBroadcast, 0.5) / percentile(direct, 0.5)).toFixed(1)),
      },
      {
        name: `withdrawal create to broadcast p99 (${PAYOUTS} at ${1000 / PACE_MS}/s, chain-worker on a local anvil)`,
        value: Math.round(percentile(toBroadcast, 0.99)),
        unit: 'ms',
        baseline: { name: 'viem alone signing and sending the transfer, p99', value: Number(percentile(direct, 0.99).toFixed(1)) },
        ratio: Number((percentile(toBroadcast, 0.99) / percentile(direct, 0.99)).toFixed(1)),
      },
    ];
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
    await pool.end();
    await setup.close();
  }
}
