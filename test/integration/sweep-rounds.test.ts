// A scheduled sweep round (ops sweep policy set --interval-seconds N) against
// the real database: when more wallets qualify than one step starts, the
// round goes on at the next steps until every one is started, and only then
// is it marked run; deposits that qualify after it wait for the next round.
// The node is a stub port (application test): it holds none of the tokens, so
// the started sweeps wait and nothing is sent; sweeps advanced several at once
// never top up more addresses than the gas tank can pay.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManageSweepPolicy } from '../../src/application/sweeps/manage-sweep-policy.js';
import { RunSweeps } from '../../src/application/sweeps/run-sweeps.js';
import { TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import { sweepGasBudget } from '../../src/domain/transfers/sweep.js';
import { TransferRefused, type ChainSender, type TransferCall } from '../../src/domain/transfers/ports.js';
import { insertConfirmedUsdtDeposit } from '../support/deposit-rows.js';
import { useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'sweep-rounds' });
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);

const unused = () => Promise.reject(new Error('not used by this test'));
const node: ChainSender = {
  network: 'ETH_TESTNET',
  nativeBalance: async () => 0n,
  tokenBalance: async () => 0n,
  feeQuote: async () => ({ maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }),
  head: unused,
  finalizedTime: async () => null,
  burnEstimate: async () => null,
  gasLimit: unused,
  minedNonce: unused,
  sign: unused,
  broadcast: unused,
  sentReceipt: unused,
  sentReceiptOnEveryNode: unused,
  revertedOnEveryNode: unused,
  agreedReceipt: unused,
  settledNonce: unused,
};

let account: number | undefined;

/** A USDT_ETH wallet of the test workspace with one CONFIRMED deposit of 60 USDT (over the minimum). */
async function creditedWallet(index: number): Promise<string> {
  account ??= (
    await sql<{ account: number }>(`insert into hd_accounts (workspace_id, network, next_index) values (?, 'ETH_TESTNET', 10) returning account`, [t.ws.workspaceId])
  )[0]!.account;
  const id = randomUUID();
  const address = `0x${(0xabc000 + index).toString(16).padStart(40, '0')}`;
  await sql(
    `insert into wallets (id, workspace_id, network, asset, address, derivation_account, derivation_index, status, created_at)
     values (?, ?, 'ETH_TESTNET', 'USDT_ETH', ?, ?, ?, 'ACTIVE', now())`,
    [id, t.ws.workspaceId, address, account, index],
  );
  await insertConfirmedUsdtDeposit(sql, t.ws.workspaceId, { id, address });
  return id;
}

const sweptWallets = async () => (await sql<{ wallet_id: string }>(`select wallet_id from sweeps where network = 'ETH_TESTNET'`)).map((r) => r.wallet_id);
const lastRun = async () => (await sql<{ last_run_at: string | null }>(`select last_run_at from sweep_policies where network = 'ETH_TESTNET' and asset = 'USDT_ETH'`))[0]!.last_run_at;

describe('a scheduled sweep round', () => {
  it('goes on at the next steps until every qualifying wallet is started, then waits for the next interval', async () => {
    const container = t.api.infra.container.createChildContainer();
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const sweeps = container.resolve(RunSweeps);
    await container.resolve(ManageSweepPolicy).set({ network: 'ETH_TESTNET', asset: 'USDT_ETH', minimum: '50', intervalSeconds: 3600 });
    const wallets = [await creditedWallet(1), await creditedWallet(2), await creditedWallet(3)];
    // Two wallets a step: the round is not over after the first.
    expect((await sweeps.step(node, { batch: 2 })).started).toBe(2);
    expect(await lastRun()).toBeNull();
    expect((await sweeps.step(node, { batch: 2 })).started).toBe(1);
    expect(new Set(await sweptWallets())).toEqual(new Set(wallets));
    expect(await lastRun()).not.toBeNull();
    // The round is over: a wallet that qualifies now waits for the next one.
    await creditedWallet(4);
    expect((await sweeps.step(node, { batch: 2 })).started).toBe(0);
    expect(await sweptWallets()).toHaveLength(3);
  });
});

describe('a sweep the node cannot price', () => {
  it('waits alone, with its reason in the step’s report, while the other sweeps go on', async () => {
    const container = t.api.infra.container.createChildContainer();
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const sweeps = container.resolve(RunSweeps);
    await container.resolve(ManageSweepPolicy).set({ network: 'ETH_TESTNET', asset: 'USDT_ETH', minimum: '50', intervalSeconds: 0 });
    const blocked = await creditedWallet(5);
    const fine = await creditedWallet(6);
    const blockedAddress = (await sql<{ address: string }>(`select address from wallets where id = ?`, [blocked]))[0]!.address;
    // The node: every address holds its 60 USDT and gas of its own; the token refuses transfers from one of them.
    const funded: ChainSender = {
      ...node,
      tokenBalance: async () => 60_000_000n,
      nativeBalance: async () => 10n ** 20n,
      gasLimit: async (call: TransferCall) => {
        if (call.from === blockedAddress) throw new TransferRefused('ETH_TESTNET', 'the USDT_ETH contract refuses the transfer: blocked');
        return 60_000n;
      },
    };
    const report = await sweeps.step(funded, { batch: 50 });
    const rows = await sql<{ id: string; wallet_id: string; status: string }>(`select id, wallet_id, status from sweeps where wallet_id in (?)`, [[blocked, fine]]);
    const byWallet = new Map(rows.map((r) => [r.wallet_id, r]));
    expect(byWallet.get(fine)!.status).toBe('SWEEPING');
    expect(byWallet.get(blocked)!.status).toBe('WAITING_GAS');
    expect(report.errors).toEqual([{ kind: 'sweep', id: byWallet.get(blocked)!.id, message: expect.stringMatching(/refuses the transfer/) }]);
  });
});

describe('sweeps advanced concurrently', () => {
  it('never top up more addresses than the gas tank can pay, however many sweeps judge it at once', async () => {
    const container = t.api.infra.container.createChildContainer();
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const sweeps = container.resolve(RunSweeps);
    await container.resolve(ManageSweepPolicy).set({ network: 'ETH_TESTNET', asset: 'USDT_ETH', minimum: '50', intervalSeconds: 0 });
    for (let i = 0; i < 10; i++) await creditedWallet(100 + i);
    const tank = await sweeps.serviceAddress('ETH_TESTNET', 'gasTank');
    const quote = { maxFeePerGas: 2n, maxPriorityFeePerGas: 1n };
    const need = sweepGasBudget(60_000n, quote);
    // Enough for exactly three top-ups (each also pays its own 21,000 gas), not four.
    const tankHolds = 3n * need + need / 2n + 21_000n * 2n;
    const slow = <T>(v: T) => new Promise<T>((r) => setTimeout(() => r(v), 5));
    const funded: ChainSender = {
      ...node,
      feeQuote: async () => quote,
      tokenBalance: async () => slow(60_000_000n),
      nativeBalance: async (address: string) => slow(address === tank ? tankHolds : 0n),
      gasLimit: async (call: TransferCall) => (call.asset === 'ETH' ? 21_000n : 60_000n),
    };
    const report = await sweeps.step(funded, { batch: 50, concurrency: 8 });
    const topUps = await sql<{ amount: string }>(`select amount::text from outgoing_transfers where kind = 'GAS_TOPUP' and from_address = ? and status = 'REQUESTED'`, [tank]);
    expect(topUps.map((r) => BigInt(r.amount))).toEqual([need, need, need]);
    expect(report.toppedUp).toBe(3);
    expect(report.gasTankLow).toMatchObject({ address: tank, needed: need + 42_000n });
    const [topping] = await sql<{ n: number }>(`select count(*)::int as n from sweeps where network = 'ETH_TESTNET' and status = 'TOPPING_UP'`);
    expect(topping!.n).toBe(3);
  });
});
