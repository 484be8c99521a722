// Issue 31's acceptance on `npm start` with no configuration: with a treasury
// policy (ceiling 100, float 50, cold storage the sandbox's cold account,
// whose key the service never holds) on ETH_TESTNET, BSC_TESTNET and
// TRON_TESTNET, deposits of 300 USDT are swept and 250 reach the cold
// account on each, exactly once, read from the node; balances do not change;
// the ledger check is ok. A withdrawal larger than the hot float waits with
// treasury_refill_needed = 1; a refill sent from the cold account with
// `npm run sandbox -- send --from cold` is booked as a refill (no deposit, no
// webhook) and the withdrawal is paid; `ops treasury reconcile` agrees. The
// chain-worker SIGKILLed during a forward: forwarded once. 30 USDC_ETH sent to a
// USDT_ETH wallet are listed by `ops deposit unexpected list`, and credited by
// the operator as a USDC_ETH deposit, swept, exactly once.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePortBlock } from '../support/free-port.js';
import { call } from '../support/harness.js';
import { poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { removeDataDir } from '../support/data-dir.js';

interface Account {
  address: string;
}
interface SandboxJson {
  networks: Record<string, { cold_account: Account; outside_account: Account }>;
}

let dataDir: string;
let env: NodeJS.ProcessEnv;
let port: number;
let sandbox: Spawned | undefined;
let key: { keyId: string; secret: string };
let file: SandboxJson;
let q = 0;
const api = (path: string, body?: unknown) =>
  call(`http://127.0.0.1:${port}`, key, {
    method: body === undefined ? 'GET' : 'POST',
    path: `${path}${path.includes('?') ? '&' : '?'}q=${++q}`,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const ops = async (...args: string[]) => {
  const res = await runEntry('src/bootstrap/ops.ts', env, [...args, '--json']);
  return { code: res.code, json: JSON.parse(res.stdout || '{}') as Record<string, unknown>, stderr: res.stderr };
};
const coldBalance = async (chain: string, asset: string) => {
  const res = await runEntry('src/bootstrap/sandbox.ts', env, ['balance', '--chain', chain, '--asset', asset, '--of', 'cold', '--json']);
  return (JSON.parse(res.stdout) as { balance: string }).balance;
};
/** Until `read` gives a value `ok` takes, within `ms`; `everyMs` apart (a read that spawns a CLI process costs a core's half second). */
const until = <T>(read: () => Promise<T>, ok: (v: T) => boolean, ms: number, what: string, everyMs = 200) =>
  poll(async () => {
    const v = await read();
    return ok(v) ? v : undefined;
  }, ms, what, everyMs).catch((err: unknown) => {
    // What the chain-worker said about custody, for the failure's report.
    const said = (sandbox?.output() ?? '').split('\n').filter((l) => /custody|cold|refill/i.test(l)).slice(-15).join('\n');
    throw new Error(`${(err as Error).message}\n${said}`);
  });
const NETS = [
  { chain: 'ETH', network: 'ETH_TESTNET', asset: 'USDT_ETH' },
  { chain: 'BSC', network: 'BSC_TESTNET', asset: 'USDT_BSC' },
  { chain: 'TRON', network: 'TRON_TESTNET', asset: 'USDT_TRON' },
];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-e2e-custody-'));
  port = await freePortBlock(7);
  const { DATABASE_URL: _u, EMBEDDED_PG_PORT: _p, ...clean } = process.env;
  env = { ...clean, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' };
  sandbox = spawnEntry('src/bootstrap/start.ts', env);
  await sandbox.waitFor(/API base URL:\s+http:\/\/127\.0\.0\.1:\d+\/v2/, 120_000);
  const created = await runEntry('src/bootstrap/ops.ts', env, ['workspace', 'create', '--name', 'custody', '--json']);
  const ws = JSON.parse(created.stdout) as { test_key: { key_id: string; secret: string } };
  key = { keyId: ws.test_key.key_id, secret: ws.test_key.secret };
  file = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as SandboxJson;
}, 180_000);

afterAll(async () => {
  if (sandbox && sandbox.child.exitCode === null) {
    sandbox.child.kill('SIGTERM');
    await sandbox.exit();
  }
  removeDataDir(dataDir);
});

describe('npm start: a hot float with cold storage behind it', () => {
  it('forwards 250 of 300 swept USDT to the cold account on ETH, BSC and TRON, once; balances unchanged, the ledger check ok', async () => {
    for (const n of NETS) {
      const set = await ops('treasury', 'policy', 'set', '--chain', n.network, '--asset', n.asset, '--cold-address', file.networks[n.network]!.cold_account.address, '--ceiling', '100', '--float', '50', '--floor', '20', '--cooling-off-hours', '0');
      expect([set.code, set.json.cold_address, set.json.pending]).toEqual([0, file.networks[n.network]!.cold_account.address, null]);
    }
    for (const n of NETS) {
      const wallet = await api('/v2/wallets', { chain: n.chain, asset: n.asset });
      expect(wallet.status).toBe(201);
      const sent = await runEntry('src/bootstrap/sandbox.ts', env, ['send', '--chain', n.chain, '--asset', n.asset, '--to', wallet.body.address as string, '--amount', '300']);
      expect(sent.code, sent.stderr).toBe(0);
    }
    // The chain-worker is SIGKILLed as soon as it has requested the ETH forward (the supervisor starts it again):
    // the forward is sent once all the same.
    await until(() => Promise.resolve(sandbox!.output()), (out) => /custody: forwarding 250\.000000 USDT_ETH of ETH_TESTNET's treasury/.test(out), 90_000, 'the ETH forward requested');
    const { pid } = (await (await fetch(`http://127.0.0.1:${port + 1}/healthz`)).json()) as { pid: number };
    process.kill(pid, 'SIGKILL');
    for (const n of NETS) await until(() => coldBalance(n.chain, n.asset), (b) => b === '250.000000', 120_000, `250 ${n.asset} in cold storage`, 1000);
    const restarted = (await (await fetch(`http://127.0.0.1:${port + 1}/healthz`)).json()) as { pid: number };
    expect(restarted.pid).not.toBe(pid);
    const balances = (await api('/v2/balances')).body.data as { asset: string; available: string }[];
    // The net of each deposit (its fee taken), whatever went to cold storage.
    for (const n of NETS) expect(Number(balances.find((b) => b.asset === n.asset)!.available)).toBeGreaterThan(290);
    // Exactly once: one forward per network, and the cold account still holds 250 a few blocks later.
    await new Promise((r) => setTimeout(r, 3000));
    for (const n of NETS) expect(await coldBalance(n.chain, n.asset)).toBe('250.000000');
    const check = await ops('ledger', 'check');
    expect(check.json).toMatchObject({ ok: true });
    // Cold storage in the metrics, as booked and as read on the node (every 30 s).
    const coldMetrics = async () => {
      const text = await (await fetch(`http://127.0.0.1:${port + 1}/metrics`)).text();
      const read = (name: string) => new RegExp(`${name}\\{network="ETH_TESTNET",asset="USDT_ETH"[^}]*\\} (\\S+)`).exec(text)?.[1];
      return `${read('treasury_cold_booked')} ${read('treasury_cold_on_chain')}`;
    };
    await until(coldMetrics, (v) => v === '250 250', 60_000, 'treasury_cold_booked and treasury_cold_on_chain at 250');
    const reconcile = await ops('treasury', 'reconcile');
    expect([reconcile.code, (reconcile.json.cold as { verdict: string }[]).map((c) => c.verdict)]).toEqual([0, ['ok', 'ok', 'ok']]);
  }, 240_000);

  it('holds a withdrawal larger than the hot float, asks for a refill, takes the refill from the cold account as a refill, and pays', async () => {
    const destination = file.networks.ETH_TESTNET!.outside_account.address;
    const w = await api('/v2/withdrawals', { chain: 'ETH', asset: 'USDT_ETH', amount: '120', destination_address: destination });
    expect(w.status).toBe(201);
    let seen = '';
    const metric = async () => {
      const text = await (await fetch(`http://127.0.0.1:${port + 1}/metrics`)).text();
      seen = text.split('\n').filter((l) => l.startsWith('treasury_')).join('\n');
      return /treasury_refill_needed\{network="ETH_TESTNET",asset="USDT_ETH"[^}]*\} (\d)/.exec(text)?.[1];
    };
    await until(metric, (v) => v === '1', 30_000, 'treasury_refill_needed 1').catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\nmetrics: ${seen}`);
    });
    expect(sandbox!.output()).toMatch(/custody: REFILL NEEDED: ETH_TESTNET's treasury is below its floor; send \d+\.\d{6} USDT_ETH from the cold address/);
    expect(((await api(`/v2/withdrawals/${w.body.id as string}`)).body as { status: string }).status).toBe('PENDING');
    const status = await ops('treasury', 'status', '--chain', 'ETH_TESTNET');
    const custody = (status.json.networks as { treasury: { address: string }; custody: { refill_needed: string }[] }[])[0]!;
    expect(Number(custody.custody[0]!.refill_needed)).toBeGreaterThan(0);
    const deposits = async () => ((await api('/v2/transactions/deposits')).body as { total: number }).total;
    const before = await deposits();
    const refill = await runEntry('src/bootstrap/sandbox.ts', env, ['send', '--chain', 'ETH', '--asset', 'USDT_ETH', '--to', custody.treasury.address, '--amount', '150', '--from', 'cold']);
    expect(refill.code, refill.stderr).toBe(0);
    await until(async () => ((await api(`/v2/withdrawals/${w.body.id as string}`)).body as { status: string }).status, (s) => s === 'CONFIRMED', 90_000, 'the withdrawal CONFIRMED');
    await until(() => Promise.resolve(sandbox!.output()), (out) => /a refill of 150\.000000 USDT_ETH from the cold address reached ETH_TESTNET's treasury/.test(out), 30_000, 'the refill said');
    expect(await deposits()).toBe(before); // a refill is no deposit
    await until(metric, (v) => v === '0', 30_000, 'treasury_refill_needed 0');
    const reconcile = await ops('treasury', 'reconcile', '--chain', 'ETH_TESTNET');
    expect((reconcile.json.cold as { booked: string; on_chain: string; verdict: string }[])[0]).toMatchObject({ booked: '100.000000', on_chain: '100.000000', verdict: 'ok' });
    expect((await ops('ledger', 'check')).json).toMatchObject({ ok: true });
  }, 240_000);

  it('lists 30 USDC_ETH sent to a USDT_ETH wallet, and the operator credits them as a USDC_ETH deposit, swept, once', async () => {
    const wallet = await api('/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' });
    const address = wallet.body.address as string;
    const sent = await runEntry('src/bootstrap/sandbox.ts', env, ['send', '--chain', 'ETH', '--asset', 'USDC_ETH', '--to', address, '--amount', '30', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    const txid = (JSON.parse(sent.stdout) as { txid: string }).txid.toLowerCase();
    type Arrival = { id: string; status: string; asset: string; amount: string; address: string; deposit_id: string | null; txid: string };
    const listed = async () => ((await ops('deposit', 'unexpected', 'list', '--chain', 'ETH_TESTNET')).json.unexpected as Arrival[]).filter((a) => a.txid === txid);
    const [arrival] = await until(listed, (l) => l.length === 1, 60_000, 'the arrival listed', 1000);
    expect(arrival).toMatchObject({ status: 'LISTED', asset: 'USDC_ETH', amount: '30.000000', address, deposit_id: null });
    type Deposit = { id: string; asset: string; status: string; amount: string; wallet_id: string };
    const depositsOfWallet = async () => ((await api(`/v2/transactions/deposits?wallet_id=${wallet.body.id as string}`)).body.data as Deposit[]);
    expect(await depositsOfWallet()).toEqual([]);
    const credit = await ops('deposit', 'unexpected', 'credit', '--id', arrival!.id);
    expect([credit.code, credit.json.outcome]).toEqual([0, 'credited']);
    expect((await ops('deposit', 'unexpected', 'credit', '--id', arrival!.id)).json).toMatchObject({ outcome: 'already_credited', deposit_id: credit.json.deposit_id });
    const [deposit] = await until(depositsOfWallet, (d) => d.length === 1 && d[0]!.status === 'SWEPT', 90_000, 'the USDC_ETH deposit credited and swept');
    expect(deposit).toMatchObject({ id: credit.json.deposit_id, asset: 'USDC_ETH', amount: '30.000000' });
    expect((await listed())[0]).toMatchObject({ status: 'CREDITED', deposit_id: deposit!.id });
    expect((await ops('ledger', 'check')).json).toMatchObject({ ok: true });
  }, 240_000);
});
