// `npm start` with no configuration, end to end, as an integrator does it:
// sandbox.json has exactly the documented shape; a USDT_ETH wallet receives
// 25 USDT by `npm run sandbox -- send`, the deposit is DETECTED, then
// CONFIRMED after the sandbox's 2 confirmations, the balance shows the net,
// and a local webhook receiver gets DEPOSIT_DETECTED and DEPOSIT_CONFIRMED
// with valid signatures. The same for USDT_BSC (18 decimals on chain), USDC,
// EURC, ETH, BNB and USDT_TRON (through the TRON stand-in, with tronweb). A
// busy local-node port is one line naming its setting, and no local node
// outlives the sandbox.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWalletClient, http, parseAbi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { verifyWebhook } from '../../src/sdk/webhooks.js';
import { freePortBlock } from '../support/free-port.js';
import { call } from '../support/harness.js';
import { poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { checkedEnvelope, startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { removeDataDir } from '../support/data-dir.js';

let dataDir: string;
let env: NodeJS.ProcessEnv;
let port: number;
let sandbox: Spawned | undefined;
let receiver: Receiver;
let key: { keyId: string; secret: string };
let hookSecret: string;
/** Every secret the run hands out (key and webhook secrets): none may ever appear in the sandbox's logs. */
const secrets: string[] = [];
let q = 0;
const callAs = (as: { keyId: string; secret: string }, path: string, body?: unknown) =>
  call(`http://127.0.0.1:${port}`, as, {
    method: body === undefined ? 'GET' : 'POST',
    path: `${path}${path.includes('?') ? '&' : '?'}q=${++q}`,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const api = (path: string, body?: unknown) => callAs(key, path, body);

/** The sandbox's local nodes: the ETH and BSC anvils and the one behind the TRON stand-in, all keeping state in DATA_DIR. */
const anvilCount = () => {
  try {
    return execFileSync('pgrep', ['-f', `anvil.*--state ${dataDir}`]).toString().trim().split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-e2e-deposits-'));
  port = await freePortBlock(7);
  const { DATABASE_URL: _u, EMBEDDED_PG_PORT: _p, ...clean } = process.env;
  env = { ...clean, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE: 'true' };
  receiver = await startReceiver(() => 200);
  sandbox = spawnEntry('src/bootstrap/start.ts', env);
  await sandbox.waitFor(/API base URL:\s+http:\/\/127\.0\.0\.1:\d+\/v2/, 120_000);
  const created = await runEntry('src/bootstrap/ops.ts', env, ['workspace', 'create', '--name', 'deposits', '--json']);
  const ws = JSON.parse(created.stdout) as { test_key: { key_id: string; secret: string } };
  key = { keyId: ws.test_key.key_id, secret: ws.test_key.secret };
  const endpoint = await api('/v2/webhooks', { url: receiver.url, events: ['DEPOSIT_DETECTED', 'DEPOSIT_CONFIRMED'] });
  expect(endpoint.status).toBe(201);
  hookSecret = endpoint.body.secret as string;
  secrets.push(key.secret, hookSecret);
}, 180_000);

afterAll(async () => {
  if (sandbox && sandbox.child.exitCode === null) {
    sandbox.child.kill('SIGTERM');
    await sandbox.exit();
  }
  await receiver?.close();
  removeDataDir(dataDir);
});

describe('npm start: deposits on the local chains', () => {
  it('writes sandbox.json in exactly the documented shape, with live nodes behind it', async () => {
    const file = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as { networks: Record<string, Record<string, unknown>> };
    expect(Object.keys(file)).toEqual(['networks']);
    const account = { address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), private_key: expect.stringMatching(/^0x[0-9a-f]{64}$/) };
    expect(file.networks.ETH_TESTNET).toEqual({
      rpc_url: `http://127.0.0.1:${port + 4}`,
      chain_id: 11155111,
      tokens: {
        USDT_ETH: '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35',
        USDC_ETH: '0xA15BB66138824a1c7167f5E85b957d04Dd34E468',
        EURC_ETH: '0xb19b36b1456E65E3A6D514D3F715f204BD59f431',
      },
      outside_account: account,
      cold_account: account,
    });
    expect(file.networks.BSC_TESTNET).toEqual({
      rpc_url: `http://127.0.0.1:${port + 5}`,
      chain_id: 97,
      tokens: { USDT_BSC: '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35' },
      outside_account: account,
      cold_account: account,
    });
    expect(file.networks.TRON_TESTNET).toEqual({
      rpc_url: `http://127.0.0.1:${port + 6}`,
      tokens: { USDT_TRON: 'TLBeMi7NQkKVvLbGLHArkb3V17TrWTuNYq' },
      outside_account: { address: expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/), private_key: expect.stringMatching(/^[0-9a-f]{64}$/) },
      cold_account: { address: expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/), private_key: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(Object.keys(file.networks).sort()).toEqual(['BSC_TESTNET', 'ETH_TESTNET', 'TRON_TESTNET']);
    expect(await rpc(file.networks.BSC_TESTNET!.rpc_url as string, 'eth_chainId')).toBe('0x61');
    // The TRON HTTP API answers as a full node does.
    const now = (await (await fetch(`${file.networks.TRON_TESTNET!.rpc_url as string}/wallet/getnowblock`, { method: 'POST' })).json()) as { blockID: string };
    expect(now.blockID).toMatch(/^[0-9a-f]{64}$/);
    // A block about every second.
    const first = BigInt(await rpc<string>(file.networks.ETH_TESTNET!.rpc_url as string, 'eth_blockNumber'));
    await new Promise((r) => setTimeout(r, 2500));
    expect(BigInt(await rpc<string>(file.networks.ETH_TESTNET!.rpc_url as string, 'eth_blockNumber')) - first).toBeGreaterThanOrEqual(2n);
  });

  it('credits a sandbox send of every asset after 2 confirmations, with signed DEPOSIT_DETECTED and DEPOSIT_CONFIRMED', async () => {
    const sends = [
      { chain: 'ETH', asset: 'USDT_ETH', amount: '25', net: '22.000000' },
      { chain: 'BSC', asset: 'USDT_BSC', amount: '12.5', net: '12.300000' },
      { chain: 'ETH', asset: 'USDC_ETH', amount: '100', net: '97.000000' },
      { chain: 'ETH', asset: 'EURC_ETH', amount: '400', net: '396.400000' },
      { chain: 'ETH', asset: 'ETH', amount: '0.1', net: '0.099100000000000000' },
      { chain: 'BSC', asset: 'BNB', amount: '0.25', net: '0.247750000000000000' },
      { chain: 'TRON', asset: 'USDT_TRON', amount: '50', net: '49.000000' },
    ];
    const wallets: Record<string, string> = {};
    const addresses: Record<string, string> = {};
    for (const s of sends) {
      const w = await api('/v2/wallets', { chain: s.chain, asset: s.asset });
      expect(w.status).toBe(201);
      wallets[s.asset] = w.body.id as string;
      addresses[s.asset] = w.body.address as string;
    }
    // All at once, as an integrator's script might: four of them from the same outside account on ETH.
    await Promise.all(
      sends.map(async (s) => {
        const sent = await runEntry('src/bootstrap/sandbox.ts', env, ['send', '--chain', s.chain, '--asset', s.asset, '--to', addresses[s.asset]!, '--amount', s.amount, '--json']);
        expect(sent.code, sent.stderr).toBe(0);
        expect(JSON.parse(sent.stdout)).toMatchObject({ asset: s.asset, to: addresses[s.asset], txid: expect.stringMatching(s.chain === 'TRON' ? /^[0-9a-f]{64}$/ : /^0x[0-9a-f]{64}$/) });
      }),
    );
    const balances = await poll(async () => {
      const res = await api('/v2/balances');
      const rows = res.body.data as { asset: string; available: string }[];
      return rows.length === sends.length ? Object.fromEntries(rows.map((r) => [r.asset, r.available])) : undefined;
    }, 30_000, 'seven credited deposits');
    expect(balances).toEqual(Object.fromEntries(sends.map((s) => [s.asset, s.net])));

    const events = await poll(async () => (receiver.received.length >= 14 ? receiver.received : undefined), 30_000, 'fourteen webhooks');
    const byWallet = new Map<string, string[]>();
    for (const got of events) {
      const verified = verifyWebhook({ rawBody: got.rawBody, headers: got.headers as Record<string, string>, secret: hookSecret });
      const data = checkedEnvelope(got).data as { wallet_id: string; status: string; fee_record: unknown };
      byWallet.set(data.wallet_id, [...(byWallet.get(data.wallet_id) ?? []), verified.event]);
    }
    for (const s of sends) expect(byWallet.get(wallets[s.asset]!)?.sort()).toEqual(['DEPOSIT_CONFIRMED', 'DEPOSIT_DETECTED']);
  }, 120_000);

  it('sweeps to each network treasury: 60 USDT_ETH, ETH, BNB, 12 USDT_TRON at once, and two 3 USDT_BSC deposits together once their sum passes the minimum', async () => {
    // The earlier test's deposits over their minimum are swept first (25 USDT_ETH is under 50 and waits).
    await poll(async () => ((await api('/v2/transactions/deposits?status=SWEPT')).body.total === 6 ? true : undefined), 60_000, 'the earlier sweeps');
    const hook = await api('/v2/webhooks', { url: receiver.url, events: ['DEPOSIT_SWEPT'] });
    expect(hook.status).toBe(201);
    const treasury = async () => {
      const res = await runEntry('src/bootstrap/ops.ts', env, ['treasury', 'status', '--json']);
      expect(res.code, res.stderr).toBe(0);
      const networks = (JSON.parse(res.stdout) as { networks: { network: string; node: boolean; treasury: { address: string; balances: Record<string, string> | null } }[] }).networks;
      return Object.fromEntries(networks.map((n) => [n.network, n]));
    };
    const before = await treasury();
    expect(before.ETH_TESTNET!.node).toBe(true);
    expect(before.ETH_MAINNET).toMatchObject({ node: false, treasury: { balances: null } });
    const wallet = async (chain: string, asset: string) => {
      const w = await api('/v2/wallets', { chain, asset });
      return { id: w.body.id as string, address: w.body.address as string };
    };
    const send = async (chain: string, asset: string, to: string, amount: string) => {
      const sent = await runEntry('src/bootstrap/sandbox.ts', env, ['send', '--chain', chain, '--asset', asset, '--to', to, '--amount', amount, '--json']);
      expect(sent.code, sent.stderr).toBe(0);
    };
    const statuses = async (walletId: string) => ((await api(`/v2/transactions/deposits?wallet_id=${walletId}`)).body.data as { status: string }[]).map((d) => d.status);
    const usdt = await wallet('ETH', 'USDT_ETH');
    const eth = await wallet('ETH', 'ETH');
    const bnb = await wallet('BSC', 'BNB');
    const small = await wallet('BSC', 'USDT_BSC');
    const trc20 = await wallet('TRON', 'USDT_TRON'); // an address never activated: the gas tank activates it with its top-up
    await Promise.all([
      send('ETH', 'USDT_ETH', usdt.address, '60'),
      send('ETH', 'ETH', eth.address, '0.05'),
      send('BSC', 'BNB', bnb.address, '0.05'),
      send('BSC', 'USDT_BSC', small.address, '3'),
      send('TRON', 'USDT_TRON', trc20.address, '12'),
    ]);
    for (const w of [usdt, eth, bnb, trc20]) await poll(async () => ((await statuses(w.id)).join() === 'SWEPT' ? true : undefined), 60_000, `swept ${w.id}`);
    expect(await statuses(small.id)).toEqual(['CONFIRMED']); // 3 USDT_BSC is under the 5 USDT_BSC minimum: it waits
    await send('BSC', 'USDT_BSC', small.address, '3');
    await poll(async () => ((await statuses(small.id)).join() === 'SWEPT,SWEPT' ? true : undefined), 60_000, 'the two small deposits swept together');
    const after = await treasury();
    const grew = (network: string, currency: string) =>
      Number(after[network]!.treasury.balances![currency]) - Number(before[network]!.treasury.balances![currency]);
    expect(grew('ETH_TESTNET', 'USDT_ETH')).toBeCloseTo(60, 6);
    expect(grew('BSC_TESTNET', 'USDT_BSC')).toBeCloseTo(6, 6);
    expect(grew('TRON_TESTNET', 'USDT_TRON')).toBeCloseTo(12, 6);
    expect(grew('ETH_TESTNET', 'ETH')).toBeGreaterThan(0.049);
    expect(grew('ETH_TESTNET', 'ETH')).toBeLessThan(0.05);
    expect(grew('BSC_TESTNET', 'BNB')).toBeGreaterThan(0.049);
    expect((await api(`/v2/wallets/${usdt.id}`)).body.status).toBe('SWEPT');
    // A receiver gets DEPOSIT_SWEPT, signed, with the fee object.
    const swept = await poll(async () => {
      const got = receiver.received.filter((r) => (checkedEnvelope(r) as { event: string }).event === 'DEPOSIT_SWEPT');
      const mine = got.find((r) => (checkedEnvelope(r).data as { wallet_id: string }).wallet_id === usdt.id);
      return mine;
    }, 30_000, 'DEPOSIT_SWEPT of the 60 USDT');
    verifyWebhook({ rawBody: swept.rawBody, headers: swept.headers as Record<string, string>, secret: hook.body.secret as string });
    expect(checkedEnvelope(swept).data).toMatchObject({
      status: 'SWEPT',
      amount: '60.000000',
      fee: { gross_amount: '60.000000', fee_amount: '3.000000', net_amount: '57.000000', applied_rate: '0.009000', applied_min_fee: '3.000000' },
    });
    const check = await runEntry('src/bootstrap/ops.ts', env, ['ledger', 'check', '--json']);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true });
  }, 240_000);

  it('withdraws to the outside account on ETH, BSC and TRON: CONFIRMED, exactly the net on chain, WITHDRAWAL_PROCESSING and WITHDRAWAL_CONFIRMED with the fee', async () => {
    // The balances and the treasuries hold what the earlier tests credited and swept.
    const file = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as {
      networks: Record<string, { rpc_url: string; tokens: Record<string, string>; outside_account: { address: string } }>;
    };
    const hook = await api('/v2/webhooks', { url: receiver.url, events: ['WITHDRAWAL_PROCESSING', 'WITHDRAWAL_CONFIRMED'] });
    expect(hook.status).toBe(201);
    // What the outside account holds, read from the node by `npm run sandbox -- balance` (the outside account by default).
    const outsideBalance = async (network: string, asset: string): Promise<bigint> => {
      const read = await runEntry('src/bootstrap/sandbox.ts', env, ['balance', '--chain', network.split('_')[0]!, '--asset', asset, '--json']);
      const out = JSON.parse(read.stdout) as { address: string; units: string };
      expect(out.address).toBe(file.networks[network]!.outside_account.address);
      return BigInt(out.units);
    };
    const cases = [
      { network: 'ETH_TESTNET', chain: 'ETH', asset: 'USDT_ETH', amount: '20', net: '15.000000', onChain: 15_000_000n },
      { network: 'BSC_TESTNET', chain: 'BSC', asset: 'USDT_BSC', amount: '4', net: '3.500000', onChain: 3_500_000_000_000_000_000n },
      { network: 'TRON_TESTNET', chain: 'TRON', asset: 'USDT_TRON', amount: '8', net: '6.000000', onChain: 6_000_000n },
    ];
    const before = await Promise.all(cases.map((c) => outsideBalance(c.network, c.asset)));
    const created = await Promise.all(
      cases.map((c) => api('/v2/withdrawals', { chain: c.chain, asset: c.asset, amount: c.amount, destination_address: file.networks[c.network]!.outside_account.address })),
    );
    for (const [i, c] of cases.entries()) {
      expect([created[i]!.status, created[i]!.body.status, created[i]!.body.net_amount], c.network).toEqual([201, 'PENDING', c.net]);
    }
    for (const [i, c] of cases.entries()) {
      const id = created[i]!.body.id as string;
      const done = await poll(async () => {
        const w = (await api(`/v2/withdrawals/${id}`)).body as { status: string };
        return w.status === 'CONFIRMED' ? w : undefined;
      }, 90_000, `the ${c.network} withdrawal confirmed`);
      expect(done).toMatchObject({ fee_record: { net_amount: c.net }, txid: expect.any(String) });
      expect((await outsideBalance(c.network, c.asset)) - before[i]!).toBe(c.onChain);
      const got = await poll(async () => {
        const mine = receiver.received.filter((r) => (checkedEnvelope(r).data as { withdrawal_id?: string }).withdrawal_id === id);
        return mine.length >= 2 ? mine : undefined;
      }, 30_000, `the ${c.network} withdrawal events`);
      const byEvent = Object.fromEntries(got.map((r) => [(checkedEnvelope(r) as { event: string }).event, checkedEnvelope(r).data as Record<string, unknown>]));
      expect(Object.keys(byEvent).sort()).toEqual(['WITHDRAWAL_CONFIRMED', 'WITHDRAWAL_PROCESSING']);
      expect(byEvent.WITHDRAWAL_CONFIRMED).toMatchObject({ status: 'CONFIRMED', fee: { gross_amount: `${c.amount}.000000`, net_amount: c.net } });
    }
    const check = await runEntry('src/bootstrap/ops.ts', env, ['ledger', 'check', '--json']);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true });
  }, 300_000);

  it('drips 100 USDT_ETH from the faucet: credited and swept with its webhooks; native ETH only after it, within its limits; a drip the token refuses fails', async () => {
    const ops = async (...argv: string[]) => {
      const res = await runEntry('src/bootstrap/ops.ts', env, [...argv, '--json']);
      expect(res.code, res.stderr).toBe(0);
      return JSON.parse(res.stdout) as Record<string, any>;
    };
    const file = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as {
      networks: Record<string, { rpc_url: string; chain_id: number; tokens: Record<string, string>; outside_account: { address: string; private_key: string } }>;
    };
    const network = file.networks.ETH_TESTNET!;
    const ws = await ops('workspace', 'create', '--name', 'faucet');
    const test = { keyId: ws.test_key.key_id as string, secret: ws.test_key.secret as string };
    secrets.push(ws.test_key.secret as string, ws.live_key.secret as string);
    const live = { keyId: ws.live_key.key_id as string, secret: ws.live_key.secret as string };
    const as = (path: string, body?: unknown) => callAs(test, path, body);
    const hook = await as('/v2/webhooks', { url: receiver.url, events: ['DEPOSIT_DETECTED', 'DEPOSIT_CONFIRMED', 'DEPOSIT_SWEPT'] });
    expect(hook.status).toBe(201);
    const wallet = async (asset: string) => {
      const w = await as('/v2/wallets', { chain: 'ETH', asset });
      return { id: w.body.id as string, address: w.body.address as string };
    };
    const usdt = await wallet('USDT_ETH');
    const eth = await wallet('ETH');
    const drip = (address: string, assets: unknown[]) => as('/v2/sandbox/faucet', { chain: 'ETH', address, assets });
    const until = (id: string, status: string) =>
      poll(async () => {
        const got = (await as(`/v2/sandbox/faucet/${id}`)).body as { status: string };
        return got.status === status ? got : undefined;
      }, 60_000, `drip ${id} ${status}`);

    // Native currency only once a token deposit of the workspace is confirmed.
    expect((await drip(eth.address, [{ symbol: 'ETH' }])).body.code).toBe('FAUCET_NATIVE_REQUIRES_DEPOSIT');
    const asked = await drip(usdt.address, [{ symbol: 'USDT_ETH', amount: '100' }]);
    expect([asked.status, asked.body]).toEqual([
      201,
      { drip_id: expect.any(String), status: 'QUEUED', chain: 'ETH_TESTNET', address: usdt.address, items: [{ asset: 'USDT_ETH', amount: '100.000000', status: 'QUEUED' }] },
    ]);
    expect(await until(asked.body.drip_id, 'COMPLETED')).toMatchObject({ items: [{ asset: 'USDT_ETH', amount: '100.000000', status: 'CONFIRMED' }] });
    // It arrives as a normal deposit: credited (100 less the 3.000000 minimum fee), swept, with its webhooks.
    const deposit = await poll(async () => {
      const d = (await as(`/v2/transactions/deposits?wallet_id=${usdt.id}`)).body.data as { status: string; amount: string }[];
      return d[0]?.status === 'SWEPT' ? d[0] : undefined;
    }, 90_000, 'the drip swept');
    expect(deposit.amount).toBe('100.000000');
    expect(((await as('/v2/balances')).body.data as { asset: string; available: string }[]).find((b) => b.asset === 'USDT_ETH')?.available).toBe('97.000000');
    const events = await poll(async () => {
      const mine = receiver.received.filter((r) => (checkedEnvelope(r).data as { wallet_id?: string }).wallet_id === usdt.id);
      return mine.length >= 3 ? mine : undefined;
    }, 30_000, 'the drip deposit’s webhooks');
    for (const got of events) verifyWebhook({ rawBody: got.rawBody, headers: got.headers as Record<string, string>, secret: hook.body.secret as string });
    expect(events.map((r) => (checkedEnvelope(r) as { event: string }).event).sort()).toEqual(['DEPOSIT_CONFIRMED', 'DEPOSIT_DETECTED', 'DEPOSIT_SWEPT']);

    // On TRON too (through the stand-in), to a new, never activated address.
    const trc20 = (await as('/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON' })).body as { id: string; address: string };
    const tron = await as('/v2/sandbox/faucet', { chain: 'TRON', address: trc20.address, assets: [{ symbol: 'USDT_TRON', amount: '15' }] });
    expect([tron.status, tron.body.chain]).toEqual([201, 'TRON_TESTNET']);
    await until(tron.body.drip_id, 'COMPLETED');
    await poll(async () => {
      const d = (await as(`/v2/transactions/deposits?wallet_id=${trc20.id}`)).body.data as { amount: string; status: string }[];
      return d[0] && ['CONFIRMED', 'SWEPT'].includes(d[0].status) && d[0].amount === '15.000000' ? d[0] : undefined;
    }, 60_000, 'the TRON drip credited');

    // Now native ETH: the default 0.01 arrives as a deposit of the ETH wallet.
    const native = await drip(eth.address, [{ symbol: 'ETH' }]);
    expect([native.status, native.body.items]).toEqual([201, [{ asset: 'ETH', amount: '0.010000000000000000', status: 'QUEUED' }]]);
    await until(native.body.drip_id, 'COMPLETED');
    await poll(async () => {
      const d = (await as(`/v2/transactions/deposits?wallet_id=${eth.id}`)).body.data as { amount: string; status: string }[];
      return d[0] && ['CONFIRMED', 'SWEPT'].includes(d[0].status) ? d[0] : undefined;
    }, 60_000, 'the ETH drip credited');

    // Every limit over HTTP, each with its own code; a live key is refused.
    const code = async (res: Promise<{ status: number; body: { code: string } }>) => {
      const r = await res;
      return `${r.status} ${r.body.code}`;
    };
    expect(await code(callAs(live, '/v2/sandbox/faucet', { chain: 'ETH', address: usdt.address, assets: [{ symbol: 'USDT_ETH' }] }))).toBe('403 FAUCET_ONLY_SANDBOX');
    expect(await code(drip(usdt.address, []))).toBe('400 FAUCET_NO_ASSETS');
    expect(await code(drip(usdt.address, [{ symbol: 'USDT_TRON' }]))).toBe('400 FAUCET_INVALID_ASSET');
    expect(await code(drip(usdt.address, [{ symbol: 'USDT_ETH', amount: '-5' }]))).toBe('400 FAUCET_INVALID_AMOUNT');
    expect(await code(drip(network.outside_account.address, [{ symbol: 'USDT_ETH' }]))).toBe('422 FAUCET_ADDRESS_NOT_FOUND');
    expect(await code(drip(usdt.address, [{ symbol: 'USDT_ETH', amount: '10001' }]))).toBe('422 FAUCET_AMOUNT_OVER_CAP');
    expect(await code(drip(usdt.address, [{ symbol: 'USDT_ETH' }, { symbol: 'USDT_ETH' }]))).toBe('422 FAUCET_DUPLICATE_ASSET');
    expect(await code(drip(usdt.address, ['USDT_ETH', 'USDC_ETH', 'EURC_ETH', 'ETH', 'USDC_ETH', 'USDT_ETH'].map((symbol) => ({ symbol }))))).toBe('422 FAUCET_TOO_MANY_ITEMS');
    expect((await drip(eth.address, [{ symbol: 'ETH', amount: '0.05' }])).status).toBe(201); // 0.06 of 0.1 given
    const budget = await drip(eth.address, [{ symbol: 'ETH', amount: '0.05' }]);
    expect(`${budget.status} ${budget.body.code}`).toBe('422 FAUCET_NATIVE_BUDGET_EXCEEDED');
    expect(budget.body.error).toMatch(/0\.060000000000000000 of the 0\.100000000000000000 budget given in the last 24 hours/);
    // More than the dispenser holds (10,000 ETH), once the operator allows such a drip.
    await ops('faucet', 'set', '--asset', 'ETH', '--cap', '50000', '--budget', '50000');
    expect(await code(drip(eth.address, [{ symbol: 'ETH', amount: '20000' }]))).toBe('422 FAUCET_DISPENSER_EXHAUSTED');
    await ops('faucet', 'set', '--asset', 'ETH', '--cap', '0.05', '--budget', '0.1');
    await ops('faucet', 'set', '--drips-per-hour', '4'); // four drips so far this hour
    expect(await code(drip(usdt.address, [{ symbol: 'USDT_ETH', amount: '1' }]))).toBe('422 FAUCET_RATE_LIMITED');
    await ops('faucet', 'set', '--drips-per-hour', '20');

    // A wallet the token refuses (on its blocklist): the dry run fails, so the drip FAILS and nothing is sent.
    const blocked = await wallet('USDT_ETH');
    const outside = createWalletClient({
      account: privateKeyToAccount(network.outside_account.private_key as Hex),
      transport: http(network.rpc_url),
      chain: { id: network.chain_id, name: 'sandbox', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [network.rpc_url] } } },
    });
    const block = parseAbi(['function setBlocked(address account, bool value)']);
    await outside.writeContract({ address: network.tokens.USDT_ETH as Address, abi: block, functionName: 'setBlocked', args: [blocked.address as Address, true] });
    await new Promise((r) => setTimeout(r, 2500)); // a block (about one a second) with it
    const refused = await drip(blocked.address, [{ symbol: 'USDT_ETH', amount: '10' }]);
    expect(refused.status).toBe(201);
    expect(await until(refused.body.drip_id, 'FAILED')).toMatchObject({ items: [{ status: 'FAILED' }] });
    expect((await as(`/v2/transactions/deposits?wallet_id=${blocked.id}`)).body.total).toBe(0);
    const check = await ops('ledger', 'check');
    expect(check).toMatchObject({ ok: true });
  }, 300_000);

  it('refuses bad input to sandbox send and balance in one line, sending nothing; reads any address’s balance', async () => {
    const wrong = await runEntry('src/bootstrap/sandbox.ts', env, ['send', '--chain', 'BSC', '--asset', 'USDT_ETH', '--to', '0x0', '--amount', '1']);
    expect([wrong.code, wrong.stderr.trim().split('\n')[0]]).toEqual([2, '--asset: USDT_ETH is not an asset of BSC']);
    const places = await runEntry('src/bootstrap/sandbox.ts', env, ['send', '--chain', 'ETH', '--asset', 'USDT_ETH', '--to', '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35', '--amount', '1.0000001']);
    expect(places.code).toBe(2);
    expect(places.stderr).toMatch(/more than 6 decimal places/);
    const address = await runEntry('src/bootstrap/sandbox.ts', env, ['balance', '--chain', 'TRON', '--asset', 'USDT_TRON', '--address', '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35']);
    expect([address.code, address.stderr.trim().split('\n')[0]]).toEqual([2, '--address: not an address of TRON (base58, T…)']);
    const mixed = await runEntry('src/bootstrap/sandbox.ts', env, ['balance', '--chain', 'ETH', '--asset', 'USDT_ETH', '--amount', '1']);
    expect(mixed.code).toBe(2);
    // A native balance, of any address (this one was never used).
    const treasury = await runEntry('src/bootstrap/sandbox.ts', env, ['balance', '--chain', 'ETH', '--asset', 'ETH', '--address', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed']);
    expect([treasury.code, treasury.stdout.trim()]).toEqual([0, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed holds 0.000000000000000000 ETH on ETH_TESTNET']);
  }, 90_000); // five CLI processes one after another: on a loaded 2-core machine each takes several seconds to start

  it('names a busy local-node port and its setting in one line', async () => {
    const busy = createServer();
    const other = await freePortBlock(7);
    await new Promise<void>((r) => busy.listen(other + 4, '127.0.0.1', () => r()));
    try {
      const res = await runEntry('src/bootstrap/start.ts', { ...env, PORT: String(other), DATA_DIR: mkdtempSync(join(tmpdir(), 'wallet-e2e-busy-')) });
      expect(res.code).toBe(1);
      expect(res.stderr.trim()).toBe(
        `Startup error: SANDBOX_ETH_PORT (PORT+4): 127.0.0.1:${other + 4} is already in use (another sandbox, or another program); stop it, or set SANDBOX_ETH_PORT or PORT`,
      );
    } finally {
      busy.close();
    }
  });

  it('never writes a secret, the seed or a private key into its logs (the whole run above, at info level)', async () => {
    const logs = sandbox!.output();
    expect(logs.length).toBeGreaterThan(10_000); // it did log: requests, deposits, sweeps, transfers
    const { sandboxEncryptionKey, sandboxMasterSeed } = await import('../../src/adapters/sandbox/sandbox-secrets.js');
    const encryptionKey = sandboxEncryptionKey(dataDir);
    const seed = sandboxMasterSeed(dataDir, encryptionKey);
    const { HDKey } = await import('@scure/bip32');
    const { mnemonicToSeedSync } = await import('@scure/bip39');
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(seed));
    const { formatPath, servicePath } = await import('../../src/domain/custody/derivation.js');
    // The service addresses' keys of the three testnets (treasury, gas tank, faucet dispenser) and the first deposit keys.
    const paths = (['ETH_TESTNET', 'BSC_TESTNET', 'TRON_TESTNET'] as const).flatMap((n) => (['treasury', 'gasTank', 'faucet'] as const).map((r) => formatPath(servicePath(n, r))));
    const keys = [...paths, "m/44'/60'/1'/0/0", "m/44'/195'/1'/0/0"].map((p) => Buffer.from(root.derive(p).privateKey!).toString('hex'));
    for (const secret of [...secrets, encryptionKey, seed, seed.split(' ').slice(0, 4).join(' '), root.privateExtendedKey, ...keys]) {
      expect(logs.includes(secret), `a secret (${secret.slice(0, 4)}…) is in the logs`).toBe(false);
    }
  });

  it('stops its local nodes with the sandbox', async () => {
    expect(anvilCount()).toBe(3); // ETH, BSC and the TRON stand-in's node
    sandbox!.child.kill('SIGTERM');
    expect((await sandbox!.exit()).code).toBe(0);
    await poll(async () => (anvilCount() === 0 ? true : undefined), 10_000, 'no local node left');
  }, 30_000);
});
