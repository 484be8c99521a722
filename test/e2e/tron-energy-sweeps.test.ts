// TRON sweeps on lent energy (issue 34, ADR 0035), end to end on the
// stand-in that models Stake 2.0 as java-tron does, with the chain-worker as
// an OS process: the operator sets the network's source to `stake` and
// stakes the energy account's TRX (ops energy, sent by the chain-worker
// through the pipeline); deposits to never-activated addresses are swept on
// energy lent for each sweep and taken back after it, burning (from the
// receipts) a small part of what the same sweeps burn without it; when the
// stake cannot lend any more, the rest burn as before, each counted; nothing
// stays lent; a chain-worker killed meanwhile leaves nothing undone or done
// twice; the ledger check is clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENERGY_COMMANDS } from '../../src/adapters/cli/energy-commands.js';
import { runOps } from '../../src/adapters/cli/run-ops.js';
import { TronChainPort } from '../../src/adapters/chains/tron-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { energyAvailable } from '../../src/domain/energy/resources.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { createWorkspace, startTestApi, testConfig, uniqueCall, TEST_SEED, type TestApi } from '../support/harness.js';
import { opsEnv, poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { startTestTron, type TestTron } from '../support/tron-chain.js';

const TRX = 1_000_000n;
let db: TestDatabase;
let api: TestApi;
let ws: CreatedWorkspace;
let tron: TestTron;
let node: TronChainPort;
let worker: Spawned | undefined;
let workerPort = 0;
let energy: string;
let gasTank: string;
let mining: NodeJS.Timeout | undefined;
let workerEnv: NodeJS.ProcessEnv;

const sql = <T extends object>(text: string, params: unknown[] = []) => api.infra.orm.em.getConnection().execute<T[]>(text, params);

function keepMining(on: boolean): void {
  if (mining) clearInterval(mining);
  mining = on ? setInterval(() => void tron.mine().catch(() => undefined), 250) : undefined;
}

async function wallet(): Promise<{ id: string; address: string }> {
  const res = await uniqueCall(api.baseUrl, ws.testKey, 'POST', '/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON' });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, address: res.body.address as string };
}

async function ops(...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const out: string[] = [];
  const c = api.infra.container.createChildContainer();
  c.register(TOKENS.Signer, { useValue: new LocalHdSigner(TEST_SEED) });
  c.register(TOKENS.BalanceReaders, { useValue: [node] });
  const code = await runOps(ENERGY_COMMANDS, [...args, '--json'], { resolve: (tok) => c.resolve(tok) }, { out: (x) => out.push(x), err: () => {} });
  return { code, json: JSON.parse(out.join('')) as Record<string, unknown> };
}

const swept = async (ids: string[]) => {
  const rows = await sql<{ status: string }>(`select status from deposits where wallet_id = any(?::uuid[])`, [`{${ids.join(',')}}`]);
  return rows.length === ids.length && rows.every((r) => r.status === 'SWEPT') ? rows : undefined;
};
const sweepsOf = (ids: string[]) =>
  sql<{ id: string; address: string; fee_paid: string }>(
    `select s.id, s.address, t.fee_paid::text as fee_paid from sweeps s join outgoing_transfers t on t.id = s.sweep_transfer_id
     where s.wallet_id = any(?::uuid[]) and s.status = 'SWEPT'`,
    [`{${ids.join(',')}}`],
  );
const loansOf = (sweepIds: string[]) =>
  sql<{ purpose_id: string; status: string; receiver: string }>(`select purpose_id, status, receiver from energy_delegations where purpose_id = any(?::uuid[])`, [`{${sweepIds.join(',')}}`]);
const metric = async (name: string) =>
  (await (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text())
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((t, l) => t + Number(l.split(' ').pop()), 0);

const tronApi = async (path: string, body: Record<string, unknown>) =>
  (await (await fetch(`${tron.standin.url}/wallet/${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as Record<string, any>;
const headBlock = async () => Number((await tronApi('getnowblock', {})).block_header.raw_data.number);
/** The types of the transactions in blocks [from, to] that `address` sent, or that the gas tank or the energy account sent to it. */
async function transactionsOf(address: string, from: number, to: number): Promise<string[]> {
  const me = (tron.tronWeb.address.toHex(address) as string).toLowerCase();
  const service = new Set([gasTank, energy].map((a) => (tron.tronWeb.address.toHex(a) as string).toLowerCase()));
  const types: string[] = [];
  for (let start = from; start <= to; start += 100) {
    const got = await tronApi('getblockbylimitnext', { startNum: start, endNum: Math.min(to + 1, start + 100) });
    for (const block of (got.block ?? []) as { transactions?: { raw_data: { contract: { type: string; parameter: { value: Record<string, string> } }[] } }[] }[]) {
      for (const tx of block.transactions ?? []) {
        const c = tx.raw_data.contract[0]!;
        const owner = String(c.parameter.value.owner_address).toLowerCase();
        const other = String(c.parameter.value.to_address ?? c.parameter.value.receiver_address ?? '').toLowerCase();
        if (owner === me || (service.has(owner) && other === me)) types.push(c.type);
      }
    }
  }
  return types;
}

function startWorker() {
  worker = spawnEntry('src/bootstrap/chain-worker.ts', workerEnv);
  return worker.waitFor(/chain-worker listening/, 30_000);
}

beforeAll(async () => {
  tron = await startTestTron();
  node = new TronChainPort({ network: 'TRON_TESTNET', urls: [tron.standin.url], contracts: { USDT_TRON: tron.token } });
  db = await createTestDatabase();
  const chainEnv = { TRON_TESTNET_CONFIRMATIONS: '2', TRON_TESTNET_USDT_TRON_CONTRACT: tron.token, TRON_TESTNET_RPC_URL: tron.standin.url };
  api = await startTestApi(testConfig(db.url, chainEnv));
  ws = await createWorkspace(api, 'tron-energy-e2e');
  const signer = new LocalHdSigner(TEST_SEED);
  gasTank = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'gasTank'));
  energy = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'energy'));
  const fund = (address: string, sun: bigint) => rpc(tron.standin.anvil.rpcUrl, 'anvil_setBalance', [`0x${tron.tronWeb.address.toHex(address).slice(2)}`, `0x${sun.toString(16)}`]);
  await fund(gasTank, 2_000n * TRX);
  await fund(energy, 40_000n * TRX);
  await tron.mine();
  keepMining(true);
  workerPort = await freePort();
  workerEnv = opsEnv(db.url, {
    ...chainEnv,
    LOG_LEVEL: 'info',
    MASTER_SEED: TEST_SEED,
    CHAIN_WORKER_PORT: String(workerPort),
    TRON_TESTNET_START_BLOCK: '0',
    SCAN_POLL_MS: '100',
    SCAN_LEASE_SECONDS: '5',
    SEND_INTERVAL_MS: '200',
  });
  await startWorker();
}, 120_000);

afterAll(async () => {
  keepMining(false);
  if (worker?.child.exitCode === null) worker.child.kill('SIGKILL');
  await api?.close();
  await db?.drop();
  await tron?.stop();
});

describe('TRON sweeps on energy lent from the stake', () => {
  it('sweeps on lent energy what the stake covers, burns for the rest (counted), and leaves nothing lent', async () => {
    // Every energy counter has its series from the start (at 0), so that an alert on its rise sees the first one.
    const first = await (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text();
    for (const reason of ['not_enough_stake', 'waited_too_long', 'energy_account_low']) {
      expect(first).toMatch(new RegExp(`^tron_energy_fallbacks_total\\{network="TRON_TESTNET",reason="${reason}"[^}]*\\} 0$`, 'm'));
    }
    expect(first).toMatch(/^tron_energy_delegations_total\{network="TRON_TESTNET"[^}]*\} 0$/m);
    // A first sweep with the default source (burn) to compare with: the treasury then holds USDT, as it will for the rest.
    const baseline = await wallet();
    await tron.sendToken(baseline.address, 20_000_000n);
    await poll(() => swept([baseline.id]), 60_000, 'the burnt sweep');
    const second = await wallet();
    await tron.sendToken(second.address, 20_000_000n);
    await poll(() => swept([second.id]), 60_000, 'a second burnt sweep');
    const burnt = BigInt((await sweepsOf([second.id]))[0]!.fee_paid);
    expect(burnt).toBeGreaterThan(10n * TRX); // 65,000 energy at 210 sun and the bytes

    expect((await ops('energy', 'policy', 'set', '--network', 'TRON_TESTNET', '--source', 'stake')).code).toBe(0);
    expect((await ops('energy', 'stake', '--network', 'TRON_TESTNET', '--trx', '30000')).code).toBe(0);
    await poll(async () => ((await node.stake(energy))?.staked === 30_000n * TRX ? true : undefined), 60_000, 'the stake on chain');

    // 30,000 TRX lends about 300,000 energy a day: four sweeps of 71,500 (65,000 and the margin), not six.
    const wallets = [];
    for (let i = 0; i < 6; i++) wallets.push(await wallet());
    for (const w of wallets) await tron.sendToken(w.address, 20_000_000n);
    const ids = wallets.map((w) => w.id);
    await poll(() => swept(ids), 180_000, 'every deposit swept');
    const sweeps = await sweepsOf(ids);
    const loans = await poll(async () => {
      const l = await loansOf(sweeps.map((s) => s.id));
      return l.length > 0 && l.every((x) => x.status === 'RECLAIMED' || x.status === 'CANCELLED') ? l : undefined;
    }, 60_000, 'every loan taken back');
    const onEnergy = sweeps.filter((s) => loans.some((l) => l.purpose_id === s.id && l.status === 'RECLAIMED'));
    const burning = sweeps.filter((s) => !onEnergy.includes(s));
    process.stdout.write(
      `[tron energy] burnt without energy: ${burnt} sun; on lent energy: ${onEnergy.map((x) => x.fee_paid).join(', ')} sun; burning for want of stake: ${burning.map((x) => x.fee_paid).join(', ')} sun\n`,
    );
    expect(onEnergy.length).toBeGreaterThanOrEqual(2);
    expect(burning.length).toBeGreaterThanOrEqual(1);
    // From the receipts: what a sweep on lent energy burnt is its bytes at most, a small part of a burnt sweep.
    for (const s of onEnergy) expect(BigInt(s.fee_paid) * 100n, s.id).toBeLessThanOrEqual(burnt * 15n);
    for (const s of burning) expect(BigInt(s.fee_paid), s.id).toBeGreaterThan(10n * TRX);
    // Nothing stays lent, on chain as in the books.
    for (const w of wallets) expect(await node.delegatedTo(energy, w.address), w.address).toBe(0n);
    expect((await node.stake(energy))!.delegated).toBe(0n);
    expect(await metric('tron_energy_fallbacks_total')).toBeGreaterThanOrEqual(burning.length);
    expect(await metric('tron_energy_reclaimed_total')).toBe(onEnergy.length);
    // The gauges, once a step has run after the last take-back: nothing open or failing, the stake's energy what is left of it.
    await poll(async () => ((await metric('tron_energy_loans_open')) === 0 ? true : undefined), 30_000, 'no loan open in the gauge');
    expect(await metric('tron_energy_takebacks_failing')).toBe(0);
    const left = energyAvailable((await node.resources(energy))!);
    const shown = await metric('tron_energy_available');
    expect(shown).toBeGreaterThan(0);
    expect(Math.abs(shown - Number(left))).toBeLessThan(5_000); // regenerating between the two reads
    const check = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url), ['ledger', 'check', '--json']);
    expect(JSON.parse(check.stdout), check.stderr).toMatchObject({ ok: true });
  }, 420_000);

  it('after a chain-worker killed between a loan and its sweep, sweeps once and takes the loan back', async () => {
    // Energy regenerates: usage is what bounds the stake now. Lend what the stake can from a fresh deposit.
    const w = await wallet();
    await tron.sendToken(w.address, 20_000_000n);
    // Killed as soon as a loan for its sweep is asked (or the sweep burns: the stake may be used up).
    await poll(async () => {
      const [s] = await sql<{ id: string; status: string }>(`select id, status from sweeps where wallet_id = ?`, [w.id]);
      if (!s) return undefined;
      const [loan] = await loansOf([s.id]);
      return loan || s.status !== 'WAITING_GAS' ? true : undefined;
    }, 60_000, 'a loan or a sweep under way');
    worker!.child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    await startWorker();
    await poll(() => swept([w.id]), 120_000, 'the deposit swept after the restart');
    const sweeps = await sql<{ id: string; sweep_transfer_id: string }>(`select id, sweep_transfer_id from sweeps where wallet_id = ?`, [w.id]);
    expect(sweeps).toHaveLength(1);
    const sent = await sql<{ n: string }>(`select count(*)::text as n from outgoing_transfers where from_address = ? and kind = 'SWEEP' and status = 'CONFIRMED'`, [w.address]);
    expect(sent[0]!.n).toBe('1');
    await poll(async () => {
      const loans = await loansOf([sweeps[0]!.id]);
      return loans.every((l) => l.status === 'RECLAIMED' || l.status === 'CANCELLED') ? true : undefined;
    }, 60_000, 'its loan, if any, taken back');
    expect(await node.delegatedTo(energy, w.address)).toBe(0n);
  }, 240_000);

  it('after a chain-worker killed between a sweep and its take-back (twice: sweep broadcast, then take-back not confirmed), sweeps once and takes the loan back once', async () => {
    // The stake of the first test is used for the window (24 hours): the operator stakes more, enough for a loan.
    const held = (await node.stake(energy))!;
    await rpc(tron.standin.anvil.rpcUrl, 'anvil_setBalance', [`0x${tron.tronWeb.address.toHex(energy).slice(2)}`, `0x${(held.balance + 12_000n * TRX).toString(16)}`]);
    expect((await ops('energy', 'stake', '--network', 'TRON_TESTNET', '--trx', '10000')).code).toBe(0);
    await poll(async () => ((await node.stake(energy))!.staked === held.staked + 10_000n * TRX ? true : undefined), 60_000, 'the added stake on chain');
    const firstBlock = await headBlock();

    const w = await wallet();
    await tron.sendToken(w.address, 20_000_000n);
    // (Detected once the scan lease of the chain-worker the last test killed runs out: it is renewed 30 s at a time.)
    // The loan lands; from here blocks come only when the test mines them, so what the chain-worker sends stays unmined.
    const sweepId = await poll(async () => {
      const [s] = await sql<{ id: string }>(`select id from sweeps where wallet_id = ?`, [w.id]);
      const [loan] = s ? await loansOf([s.id]) : [];
      return loan?.status === 'DELEGATED' ? s!.id : undefined;
    }, 90_000, 'energy lent for the sweep');
    keepMining(false);
    const sweepTransfer = () => sql<{ id: string; status: string }>(`select t.id, t.status from sweeps s join outgoing_transfers t on t.id = s.sweep_transfer_id where s.id = ?`, [sweepId]);
    const loan = async () => (await sql<{ status: string; reclaim_transfer_id: string | null }>(`select status, reclaim_transfer_id from energy_delegations where purpose_id = ?`, [sweepId]))[0]!;
    const transferStatus = async (id: string) => (await sql<{ status: string }>(`select status from outgoing_transfers where id = ?`, [id]))[0]!.status;

    // 1. The sweep broadcast, its take-back not asked: killed.
    await poll(async () => ((await sweepTransfer())[0]?.status === 'BROADCAST' ? true : undefined), 30_000, 'the sweep broadcast');
    expect(await loan()).toMatchObject({ status: 'DELEGATED', reclaim_transfer_id: null });
    worker!.child.kill('SIGKILL');
    await worker!.exit();
    await startWorker();

    // 2. Blocks one at a time until the sweep is final and its take-back asked; that take-back sent, not confirmed: killed.
    await poll(async () => {
      if ((await loan()).status !== 'DELEGATED') return true;
      await tron.mine();
      return undefined;
    }, 90_000, 'the sweep confirmed, its take-back asked');
    const reclaimId = (await loan()).reclaim_transfer_id!;
    expect(reclaimId).not.toBeNull();
    await poll(async () => (['BROADCAST', 'CONFIRMING'].includes(await transferStatus(reclaimId)) ? true : undefined), 30_000, 'the take-back sent');
    expect((await sweepTransfer())[0]!.status).toBe('CONFIRMED');
    expect(await loan()).toMatchObject({ status: 'RECLAIMING', reclaim_transfer_id: reclaimId });
    worker!.child.kill('SIGKILL');
    await worker!.exit();
    await startWorker();
    keepMining(true);

    await poll(async () => ((await loan()).status === 'RECLAIMED' ? true : undefined), 90_000, 'the loan taken back after the restarts');
    await poll(() => swept([w.id]), 60_000, 'the deposit swept');
    // Swept once, lent once, taken back once: in the books,
    const sweeps = await sql<{ id: string }>(`select id from sweeps where wallet_id = ?`, [w.id]);
    expect(sweeps.map((s) => s.id)).toEqual([sweepId]);
    const sent = await sql<{ kind: string; status: string; to_address: string }>(
      `select kind, status, to_address from outgoing_transfers where (from_address = ? and kind = 'SWEEP') or (to_address = ? and kind in ('ENERGY_DELEGATE', 'ENERGY_RECLAIM')) order by kind::text`,
      [w.address, w.address],
    );
    expect(sent.map((t) => `${t.kind} ${t.status}`)).toEqual(['ENERGY_DELEGATE CONFIRMED', 'ENERGY_RECLAIM CONFIRMED', 'SWEEP CONFIRMED']);
    expect(await loansOf([sweepId])).toEqual([{ purpose_id: sweepId, status: 'RECLAIMED', receiver: w.address }]);
    // and on chain: one sweep from the address, one loan to it and one take-back, nothing lent to it or to anyone.
    await tron.mine(2);
    const onChain = await transactionsOf(w.address, firstBlock, await headBlock());
    expect(onChain.filter((t) => t !== 'TransferContract').sort()).toEqual(['DelegateResourceContract', 'TriggerSmartContract', 'UnDelegateResourceContract']);
    expect(await node.delegatedTo(energy, w.address)).toBe(0n);
    expect((await node.stake(energy))!.delegated).toBe(0n);
    const check = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url), ['ledger', 'check', '--json']);
    expect(JSON.parse(check.stdout), check.stderr).toMatchObject({ ok: true });
  }, 300_000);
});
