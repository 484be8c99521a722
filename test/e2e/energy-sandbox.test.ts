// Issue 34's acceptance on `npm start`, run as an operator runs it (ADR 0035,
// docs/operations.md#tron-energy): the sandbox as it comes (no setting: the
// stand-in's 24-hour energy window, so a stake lends only what it yields),
// deposit addresses made through the REST API, deposits sent with
// `npm run sandbox -- send`, the energy account staking the TRX the sandbox
// gives it, everything else with `npm run ops`. What each
// sweep cost is read from the chain itself: every transaction the service
// sent for a deposit address (the gas tank's top-up, the energy account's
// loan and take-back, the sweep) found in the stand-in's blocks and priced
// by its receipt (gettransactioninfobyid `fee`).
//
// 1. A few deposits swept with the default source (burn) give what a sweep
//    burns; with a stake that lends energy for exactly five sweeps, 20 deposits
//    are all swept: five on lent energy, fifteen burning, each counted once in
//    tron_energy_fallbacks_total and in `ops energy status`.
// 2. With enough stake, 20 more deposits to never-activated addresses are all
//    swept on lent energy, burning at most 15 % of what burning sweeps do per
//    deposit; nothing stays lent (ops energy status, getdelegatedresourcev2,
//    getaccountresource); the ledger check is clean.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDataDir } from '../support/data-dir.js';
import { freePortBlock } from '../support/free-port.js';
import { call } from '../support/harness.js';
import { poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';

const SUN = 1_000_000n;
/** A USDT transfer to a holder (the treasury, once it holds USDT) on the stand-in, as on mainnet, and the default margin. */
const TRANSFER_ENERGY = 65_000n;
const MARGIN_PERCENT = 10n;
const ENERGY_PRICE = 210n;

let dataDir: string;
let env: NodeJS.ProcessEnv;
let port: number;
let sandbox: Spawned | undefined;
let key: { keyId: string; secret: string };
let tronUrl: string;
let gasTank: string;
let treasury: string;
let energy: string;

interface EnergyStatus {
  energy_account: string;
  activated: boolean;
  policy: { source: string; margin_percent: number };
  balance_trx: string;
  staked_trx: string;
  delegated_trx: string;
  lendable_trx: string;
  loans_open: number;
  last_24h: { burn_fallbacks: number; loans_taken_back: number; trx_saved: string };
  transfers_open: unknown[];
}

// ---- the operator's and the integrator's tools ---------------------------------

let q = 0;
async function api(path: string, body?: unknown) {
  const res = await call(`http://127.0.0.1:${port}`, key, {
    method: body === undefined ? 'GET' : 'POST',
    path: `${path}${path.includes('?') ? '&' : '?'}q=${++q}`,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${path}: ${res.text}`).toBeLessThan(300);
  return res.body as Record<string, any>;
}

async function ops(...args: string[]): Promise<Record<string, any>> {
  const res = await runEntry('src/bootstrap/ops.ts', env, [...args, '--json']);
  expect(res.code, `ops ${args.join(' ')}: ${res.stdout} ${res.stderr}`).toBe(0);
  return JSON.parse(res.stdout) as Record<string, any>;
}

const energyStatus = async () => (await ops('energy', 'status', '--network', 'TRON_TESTNET')).networks[0] as EnergyStatus;

/** `npm run sandbox -- send` of USDT_TRON to each address, at most four processes at a time (they take turns on the chain anyway). */
async function sendEach(addresses: string[], amount: string): Promise<void> {
  const queue = [...addresses];
  const worker = async () => {
    for (let to = queue.shift(); to !== undefined; to = queue.shift()) {
      const sent = await runEntry('src/bootstrap/sandbox.ts', env, ['send', '--chain', 'TRON', '--asset', 'USDT_TRON', '--to', to, '--amount', amount, '--json']);
      expect(sent.code, sent.stderr).toBe(0);
      expect(JSON.parse(sent.stdout)).toMatchObject({ asset: 'USDT_TRON', to });
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

/** A customer of the integrator with `n` USDT_TRON deposit addresses, each new (never activated on chain). */
async function customerWithWallets(ref: string, n: number): Promise<{ id: string; addresses: string[] }> {
  const customer = await api('/v2/customers', { external_ref: ref });
  const addresses: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = await api('/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON', customer_id: customer.id });
    addresses.push(w.address as string);
  }
  for (const a of addresses) expect(await tron('getaccount', { address: a, visible: true }), a).toEqual({});
  return { id: customer.id as string, addresses };
}

/** Every deposit of the customer swept (the integrator's view). */
async function allSwept(customerId: string, count: number, ms: number, what: string): Promise<void> {
  await poll(async () => {
    const list = await api(`/v2/transactions/deposits?customer_id=${customerId}&limit=100`);
    const data = list.data as { status: string }[];
    return data.length === count && data.every((d) => d.status === 'SWEPT') ? true : undefined;
  }, ms, what);
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port + 1}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((t, l) => t + Number(l.split(' ').pop()), 0);
}

// ---- the chain, read from the stand-in's TRON HTTP API --------------------------

async function tron(path: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  return (await (await fetch(`${tronUrl}/wallet/${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as Record<string, any>;
}

const hex = (base58: string) => (TronWeb.address.toHex(base58) as string).toLowerCase();
const head = async () => Number((await tron('getnowblock', {})).block_header.raw_data.number);

/** The energy account's stake on chain (sun): staked and not lent, and lent. */
async function stakeOnChain(): Promise<{ staked: bigint; delegated: bigint; balance: bigint }> {
  const a = await tron('getaccount', { address: energy, visible: true });
  const staked = ((a.frozenV2 ?? []) as { type?: string; amount?: number | string }[]).filter((f) => f.type === 'ENERGY').reduce((t, f) => t + BigInt(f.amount ?? 0), 0n);
  return { staked, delegated: BigInt(a.account_resource?.delegated_frozenV2_balance_for_energy ?? 0), balance: BigInt(a.balance ?? 0) };
}

interface SentTx {
  txid: string;
  type: string;
  fee: bigint;
  energyUsage: bigint;
  energyFee: bigint;
}

/**
 * Every transaction the service sent for these deposit addresses in blocks [from, to]: the gas tank's TRX
 * to them, the energy account's loans to them and take-backs, and whatever they sent themselves (their
 * sweeps), each with what its receipt says it burnt. Keyed by address (hex).
 */
async function sentFor(addresses: string[], from: number, to: number): Promise<Map<string, SentTx[]>> {
  const mine = new Map(addresses.map((a) => [hex(a), [] as SentTx[]]));
  const service = new Set([hex(gasTank), hex(energy)]);
  for (let start = from; start <= to; start += 100) {
    const got = await tron('getblockbylimitnext', { startNum: start, endNum: Math.min(to + 1, start + 100) });
    for (const block of (got.block ?? []) as { transactions?: { txID: string; raw_data: { contract: { type: string; parameter: { value: Record<string, string> } }[] } }[] }[]) {
      for (const tx of block.transactions ?? []) {
        const c = tx.raw_data.contract[0]!;
        const owner = String(c.parameter.value.owner_address).toLowerCase();
        const other = String(c.parameter.value.to_address ?? c.parameter.value.receiver_address ?? '').toLowerCase();
        const address = mine.has(owner) ? owner : service.has(owner) && mine.has(other) ? other : null;
        if (!address) continue;
        const info = await tron('gettransactioninfobyid', { value: tx.txID });
        mine.get(address)!.push({
          txid: tx.txID,
          type: c.type,
          fee: BigInt(info.fee ?? 0),
          energyUsage: BigInt(info.receipt?.energy_usage ?? 0),
          energyFee: BigInt(info.receipt?.energy_fee ?? 0),
        });
      }
    }
  }
  return mine;
}

const total = (txs: SentTx[]) => txs.reduce((t, x) => t + x.fee, 0n);
const ofType = (txs: SentTx[], type: string) => txs.filter((x) => x.type === type);
const trx = (sun: bigint) => `${sun / SUN}.${(sun % SUN).toString().padStart(6, '0')}`;

/**
 * Waits until nothing of the energy account is lent (the stand-in applies a take-back when it accepts it),
 * then for two more blocks, so that every take-back is in a block; returns the head.
 */
async function nothingLent(): Promise<number> {
  await poll(async () => ((await stakeOnChain()).delegated === 0n ? true : undefined), 60_000, 'every loan taken back on chain');
  const now = await head();
  return poll(async () => {
    const h = await head();
    return h >= now + 2 ? h : undefined;
  }, 30_000, 'two more blocks');
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-e2e-energy-'));
  port = await freePortBlock(7);
  const { DATABASE_URL: _u, EMBEDDED_PG_PORT: _p, TRON_STANDIN_RESOURCE_WINDOW_SECONDS: _w, ...clean } = process.env;
  env = { ...clean, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' };
  sandbox = spawnEntry('src/bootstrap/start.ts', env);
  await sandbox.waitFor(/API base URL:\s+http:\/\/127\.0\.0\.1:\d+\/v2/, 150_000);
  // The sandbox's own workspace, made by npm start; its test key, as `npm run api` signs with it.
  const ws = JSON.parse(readFileSync(join(dataDir, 'workspace.json'), 'utf8')) as { test_key: { key_id: string; secret: string } };
  key = { keyId: ws.test_key.key_id, secret: ws.test_key.secret };
  const file = JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as { networks: { TRON_TESTNET: { rpc_url: string; outside_account: { private_key: string } } } };
  tronUrl = file.networks.TRON_TESTNET.rpc_url;
  const [accounts, status] = await Promise.all([ops('treasury', 'status', '--chain', 'TRON'), energyStatus()]);
  const tronAccounts = (accounts.networks as { network: string; treasury: { address: string }; gas_tank: { address: string } }[]).find((n) => n.network === 'TRON_TESTNET')!;
  gasTank = tronAccounts.gas_tank.address;
  treasury = tronAccounts.treasury.address;
  energy = status.energy_account;
  expect(status).toMatchObject({ activated: true, balance_trx: '1000000', policy: { source: 'burn', margin_percent: 10 }, staked_trx: '0', loans_open: 0 });
}, 240_000);

afterAll(async () => {
  if (sandbox && sandbox.child.exitCode === null) {
    sandbox.child.kill('SIGTERM');
    await sandbox.exit();
  }
  if (dataDir) removeDataDir(dataDir);
});

describe('npm start: TRON sweeps on energy lent from the stake (issue 34 acceptance)', () => {
  /** TRX (sun) the burn source spends per swept deposit, from the receipts. */
  let burnPerDeposit = 0n;
  /** Whole TRX of stake a loan of one sweep takes (65,000 energy and the margin, at the network's ratio, plus one TRX). */
  let perLoan = 0n;
  let fallbacksBefore = 0;
  /** Everything the operator staked (sun). */
  let stakedTotal = 0n;

  it('burn (the default): a swept deposit costs its activation and 65,000 energy burnt, from the receipts', async () => {
    // The treasury holds USDT first (a transfer to the treasury is not a deposit), so every sweep below is a
    // transfer to a holder: 65,000 energy, as the docs' sizing counts it.
    await sendEach([treasury], '5');
    const burnt = await customerWithWallets('energy-burn', 3);
    const from = await head();
    await sendEach(burnt.addresses, '20');
    await allSwept(burnt.id, 3, 90_000, 'the three deposits swept by burning');
    const txs = await sentFor(burnt.addresses, from, await head());
    for (const [address, sent] of txs) {
      expect(ofType(sent, 'TriggerSmartContract'), address).toHaveLength(1);
      expect(ofType(sent, 'TriggerSmartContract')[0]!.energyFee, address).toBe(TRANSFER_ENERGY * ENERGY_PRICE);
      expect(ofType(sent, 'DelegateResourceContract'), address).toHaveLength(0);
    }
    burnPerDeposit = [...txs.values()].reduce((t, s) => t + total(s), 0n) / 3n;
    expect(burnPerDeposit).toBeGreaterThanOrEqual(TRANSFER_ENERGY * ENERGY_PRICE);
  }, 150_000);

  it('with a stake for five sweeps, 20 deposits are all swept: 5 on lent energy, 15 burning, each counted as a fallback', async () => {
    // The sandbox's energy account holds 1,000,000 TRX from the start: the operator picks the source, then stakes.
    expect((await stakeOnChain()).balance).toBe(1_000_000n * SUN);
    expect(await ops('energy', 'policy', 'set', '--network', 'TRON_TESTNET', '--source', 'stake')).toMatchObject({ chain: 'TRON_TESTNET', source: 'stake', margin_percent: 10 });

    // The stake for exactly five sweeps, from the stand-in's arithmetic (docs/operations.md: S = E × weight ÷ limit):
    // a loan is 65,000 × 1.1 energy of stake (one TRX more: the service's rounding), and a sweep that used its
    // loan leaves its 65,000 energy used on the stake for the window (24 hours here). Five loans fit; a sixth
    // would need what five used plus a loan, so S sits between the two.
    const totals = await tron('getaccountresource', { address: energy, visible: true });
    const limit = BigInt(totals.TotalEnergyLimit);
    const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
    const weightWith = (stake: bigint) => BigInt(totals.TotalEnergyWeight) + stake;
    const loanOf = (stake: bigint) => ceilDiv(ceilDiv(TRANSFER_ENERGY * (100n + MARGIN_PERCENT), 100n) * weightWith(stake), limit) + 1n;
    const usedOf = (stake: bigint) => ceilDiv(TRANSFER_ENERGY * weightWith(stake), limit);
    const five = 5n * usedOf(40_000n) + loanOf(40_000n) - 700n; // 700 TRX under a sixth loan: half an hour of regeneration
    perLoan = loanOf(five);
    expect(five).toBeGreaterThanOrEqual(5n * perLoan + 2_000n);
    expect(five + 600n).toBeLessThan(5n * usedOf(five) + perLoan);
    expect(await ops('energy', 'stake', '--network', 'TRON_TESTNET', '--trx', String(five))).toMatchObject({ kind: 'ENERGY_STAKE', trx: String(five) });
    stakedTotal = five * SUN;
    await poll(async () => ((await stakeOnChain()).staked === stakedTotal ? true : undefined), 60_000, 'the stake on chain');

    fallbacksBefore = await metric('tron_energy_fallbacks_total');
    const short = await customerWithWallets('energy-short', 20);
    const from = await head();
    await sendEach(short.addresses, '20');
    await allSwept(short.id, 20, 180_000, 'every deposit swept, none waiting for energy');
    const txs = await sentFor(short.addresses, from, await nothingLent());
    const lent = [...txs].filter(([, s]) => ofType(s, 'DelegateResourceContract').length > 0);
    const burning = [...txs].filter(([, s]) => ofType(s, 'DelegateResourceContract').length === 0);
    for (const [address, s] of txs) expect(ofType(s, 'TriggerSmartContract'), `${address}: one sweep`).toHaveLength(1);
    for (const [address, s] of lent) {
      expect(ofType(s, 'DelegateResourceContract'), address).toHaveLength(1);
      expect(ofType(s, 'UnDelegateResourceContract'), address).toHaveLength(1);
      expect(ofType(s, 'TriggerSmartContract')[0], address).toMatchObject({ energyUsage: TRANSFER_ENERGY, energyFee: 0n });
    }
    for (const [address, s] of burning) {
      expect(ofType(s, 'UnDelegateResourceContract'), address).toHaveLength(0);
      expect(ofType(s, 'TriggerSmartContract')[0], address).toMatchObject({ energyUsage: 0n, energyFee: TRANSFER_ENERGY * ENERGY_PRICE });
    }
    const lentCost = lent.reduce((t, [, s]) => t + total(s), 0n);
    const burntCost = burning.reduce((t, [, s]) => t + total(s), 0n);
    process.stdout.write(
      `[energy sandbox] stake ${five} TRX for five sweeps (${perLoan} TRX a loan): ${lent.length} on lent energy (${trx(lent.length ? lentCost / BigInt(lent.length) : 0n)} TRX each), ` +
        `${burning.length} burning (${trx(burning.length ? burntCost / BigInt(burning.length) : 0n)} TRX each)\n`,
    );
    expect(lent).toHaveLength(5);
    expect(burning).toHaveLength(15);
    // Each burning sweep counted once, in the chain-worker's metric and in ops energy status.
    expect((await metric('tron_energy_fallbacks_total')) - fallbacksBefore).toBe(15);
    const status = await energyStatus();
    expect(status).toMatchObject({ loans_open: 0, delegated_trx: '0', last_24h: { burn_fallbacks: 15, loans_taken_back: 5 } });
  }, 420_000);

  it('with stake enough, 20 deposits to new addresses are all swept on lent energy, burning at most 15 % of what burning does; nothing stays lent', async () => {
    // What is left to lend (what the five used still regenerates), and enough more for 20 loans and a few to spare.
    const before = await energyStatus();
    const more = ((24n * perLoan - BigInt(before.lendable_trx.split('.')[0]!)) / 1000n + 1n) * 1000n;
    expect(await ops('energy', 'stake', '--network', 'TRON_TESTNET', '--trx', String(more))).toMatchObject({ kind: 'ENERGY_STAKE' });
    stakedTotal += more * SUN;
    await poll(async () => ((await stakeOnChain()).staked === stakedTotal ? true : undefined), 60_000, 'the added stake on chain');
    const fallbacks = await metric('tron_energy_fallbacks_total');

    const lent = await customerWithWallets('energy-stake', 20);
    const from = await head();
    await sendEach(lent.addresses, '20');
    await allSwept(lent.id, 20, 180_000, 'every deposit swept on lent energy');
    const txs = await sentFor(lent.addresses, from, await nothingLent());
    for (const [address, s] of txs) {
      // Activated by the gas tank's top-up, lent energy once, swept once on it, the loan taken back.
      expect(ofType(s, 'TransferContract').length, address).toBeGreaterThanOrEqual(1);
      expect(ofType(s, 'DelegateResourceContract'), address).toHaveLength(1);
      expect(ofType(s, 'TriggerSmartContract'), address).toHaveLength(1);
      expect(ofType(s, 'TriggerSmartContract')[0], address).toMatchObject({ energyUsage: TRANSFER_ENERGY, energyFee: 0n });
      expect(ofType(s, 'UnDelegateResourceContract'), address).toHaveLength(1);
      expect(s.map((x) => x.type).filter((t) => !['TransferContract', 'DelegateResourceContract', 'TriggerSmartContract', 'UnDelegateResourceContract'].includes(t)), address).toEqual([]);
    }
    const stakePerDeposit = [...txs.values()].reduce((t, s) => t + total(s), 0n) / 20n;
    process.stdout.write(
      `[energy sandbox] TRX burnt per swept deposit, from the receipts: burn ${trx(burnPerDeposit)}, stake ${trx(stakePerDeposit)} ` +
        `(${((Number(stakePerDeposit) / Number(burnPerDeposit)) * 100).toFixed(1)} %); stake added ${more} TRX\n`,
    );
    expect(stakePerDeposit * 100n).toBeLessThanOrEqual(burnPerDeposit * 15n);
    expect(await metric('tron_energy_fallbacks_total')).toBe(fallbacks);

    // Nothing stays lent: in the books, and on chain to any of the 40 addresses or at all.
    const status = await energyStatus();
    expect(status).toMatchObject({ loans_open: 0, delegated_trx: '0', transfers_open: [], last_24h: { burn_fallbacks: 15, loans_taken_back: 25 } });
    const index = await tron('getdelegatedresourceaccountindexv2', { value: energy, visible: true });
    expect(index.toAccounts ?? []).toEqual([]);
    const all = [...lent.addresses, ...((await api('/v2/wallets?limit=100')).data as { address: string }[]).map((w) => w.address)];
    for (const a of new Set(all)) expect(await tron('getdelegatedresourcev2', { fromAddress: energy, toAddress: a, visible: true }), a).toEqual({});
    const resource = await tron('getaccountresource', { address: energy, visible: true });
    expect(await stakeOnChain()).toMatchObject({ staked: stakedTotal, delegated: 0n });
    // The account's energy limit is that of everything staked: none of it is with anyone else.
    expect(BigInt(resource.EnergyLimit)).toBe((stakedTotal * BigInt(resource.TotalEnergyLimit)) / (SUN * BigInt(resource.TotalEnergyWeight)));
    expect(await ops('ledger', 'check')).toMatchObject({ ok: true });
  }, 420_000);
});
