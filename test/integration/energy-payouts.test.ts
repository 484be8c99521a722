// Payouts on lent energy (issue 34, ADR 0035): with TRON_TESTNET's energy
// source set to `stake`, a USDT_TRON withdrawal from the treasury and a faucet
// drip from the dispenser each borrow their transfer's energy from the energy
// account, go once the loan is on chain, burn no TRX for energy (from the
// receipts), and give the stake back in the transaction that ends them; a
// payout the stake cannot cover burns as before, said and recorded once. The
// real use cases, pipeline, TRON adapter and PostgreSQL, on the stand-in that
// models Stake 2.0 as java-tron does.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronChainPort } from '../../src/adapters/chains/tron-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { SendDrips } from '../../src/application/faucet/send-drips.js';
import { TOKENS } from '../../src/application/tokens.js';
import { ProcessTransfers, TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import { SendWithdrawals } from '../../src/application/withdrawals/send-withdrawals.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import type { Drip } from '../../src/domain/faucet/faucet.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import type { StakeOperation } from '../../src/domain/energy/resources.js';
import { TEST_SEED, uniqueCall, useTestApi } from '../support/harness.js';
import { startTestTron, type TestTron } from '../support/tron-chain.js';

const TRX = 1_000_000n;
const t = useTestApi({ workspace: 'energy-payouts', env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' } });
const signer = new LocalHdSigner(TEST_SEED);
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
let tron: TestTron;
let port: TronChainPort;
let energy: string;
let treasury: string;
let dispenser: string;

const hexOf = (address: string) => `0x${tron.tronWeb.address.toHex(address).slice(2)}`;
async function fund(address: string, sun: bigint) {
  await rpc(tron.standin.anvil.rpcUrl, 'anvil_setBalance', [hexOf(address), `0x${sun.toString(16)}`]);
}
async function mint(to: string, units: bigint) {
  const minted = await tron.callToken('mint(address,uint256)', [
    { type: 'address', value: to },
    { type: 'uint256', value: units.toString() },
  ]);
  expect(minted.result).toBe(true);
}
/** The receipt's fee (sun burnt) of a transaction. */
async function feeOf(txid: string): Promise<bigint> {
  const info = (await (await fetch(`${tron.standin.url}/wallet/gettransactioninfobyid`, { method: 'POST', body: JSON.stringify({ value: txid }) })).json()) as { fee?: number; receipt?: { energy_fee?: number } };
  return BigInt(info.fee ?? 0);
}

function sending() {
  const container = t.api.infra.container.createChildContainer();
  container.register(TOKENS.Signer, { useValue: signer });
  container.registerInstance(TransferOutcomes, new TransferOutcomes());
  return {
    uow: container.resolve<UnitOfWork>(TOKENS.UnitOfWork),
    withdrawals: container.resolve(SendWithdrawals),
    drips: container.resolve(SendDrips),
    pipeline: container.resolve(ProcessTransfers),
  };
}
type Sending = ReturnType<typeof sending>;

/** One chain-worker step of the payouts and the pipeline, then a block. */
async function step(s: Sending) {
  const withdrawals = await s.withdrawals.step(port, { batch: 10 });
  const drips = await s.drips.step(port, { batch: 10 });
  await s.pipeline.step(port, { replaceAfterMs: 60_000, rebroadcastAfterMs: 0, batch: 20 });
  await tron.mine();
  return { withdrawals, drips };
}
const loansOf = (purposeId: string) => sql<{ status: string; used_by: string | null; stake: string; receiver: string }>(`select status, used_by, stake, receiver from energy_delegations where purpose_id = ?`, [purposeId]);

async function withdraw(amount: string): Promise<string> {
  const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/withdrawals', { chain: 'TRON', asset: 'USDT_TRON', amount, destination_address: tron.outside });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function stake(op: StakeOperation) {
  const signed = await port.sign({ asset: 'TRX', from: energy, to: energy, amount: 'amount' in op ? op.amount : 1n, nonce: null, gasLimit: null, fees: null, feeLimit: null, stake: op }, (d) =>
    signer.signDigest('TRON', servicePath('TRON_TESTNET', 'energy'), d),
  );
  expect(await port.broadcast(signed.raw)).toBe('accepted');
  await tron.mine();
  expect((await port.sentReceipt(signed.txid))?.status).toBe('success');
}

beforeAll(async () => {
  tron = await startTestTron({ resourceWindowSeconds: 3600 });
  port = new TronChainPort({ network: 'TRON_TESTNET', urls: [tron.standin.url], contracts: { USDT_TRON: tron.token }, retryDelayMs: 10, retryCount: 1 });
  energy = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'energy'));
  treasury = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'treasury'));
  dispenser = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'faucet'));
  await fund(energy, 40_000n * TRX);
  await fund(treasury, 200n * TRX);
  await fund(dispenser, 200n * TRX);
  await mint(treasury, 1_000n * TRX);
  await mint(dispenser, 1_000n * TRX);
  await mint(tron.outside, 1n * TRX); // a destination that holds the token: 65,000 energy a transfer, not 130,000
  await tron.mine();
  // 10,000 TRX staked: about 100,000 energy on the stand-in's mainnet-like weight, one transfer's loan (71,500) and no second.
  await stake({ kind: 'stake', amount: 10_000n * TRX });
  await t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run(async (tx) => {
    await tx.energy.setPolicy({ network: 'TRON_TESTNET', source: 'stake', marginPercent: 10, maxWaitSeconds: 120, updatedAt: new Date() });
    await tx.ledger.post(
      creditDeposit({ id: randomUUID(), network: 'TRON_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: t.ws.workspaceId, gross: Amount.parse('500', 'USDT_TRON'), fee: Amount.zero('USDT_TRON') }),
    );
  });
});

afterAll(async () => {
  await tron?.stop();
});

describe('payouts on lent energy', () => {
  it('a withdrawal waits for its loan, goes on it and gives it back; one the stake cannot cover burns, said once, and the two burn one transfer’s energy at most', async () => {
    const s = sending();
    const first = await withdraw('20');
    const first_ = await step(s);
    expect(first_.withdrawals).toMatchObject({ pickedUp: 0, energyWaiting: 1, energyFallbacks: [] });
    const [asked] = await loansOf(first);
    expect(asked).toMatchObject({ status: 'DELEGATING', receiver: treasury, used_by: null });
    // A second while the first's loan is out: the stake has no second loan in it, so it burns at once.
    const second = await withdraw('20');
    let fallbacks = 0;
    for (let i = 0; i < 20; i++) {
      const r = await step(s);
      fallbacks += r.withdrawals.energyFallbacks.filter((f) => f.id === second && f.reason === 'not_enough_stake').length;
      const rows = await sql<{ id: string; status: string }>(`select id, status from withdrawals where id in (?, ?)`, [first, second]);
      const loans = await loansOf(first);
      if (rows.every((w) => w.status === 'CONFIRMED') && loans[0]?.status === 'RECLAIMED') break;
    }
    expect(fallbacks).toBe(1);
    expect(await loansOf(second)).toEqual([]);
    const rows = await sql<{ id: string; status: string; txid: string; transfer_id: string }>(`select id, status, txid, transfer_id from withdrawals where id in (?, ?)`, [first, second]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(first)!.status).toBe('CONFIRMED');
    expect(byId.get(second)!.status).toBe('CONFIRMED');
    const [loan] = await loansOf(first);
    expect(loan).toMatchObject({ status: 'RECLAIMED', used_by: byId.get(first)!.transfer_id });
    // From the receipts: the two burnt at most one transfer's energy between them (and their bytes), not two (the
    // loan's margin covers part of the other). Which of them used the lent energy is the chain's choice: both send
    // from the treasury, which holds it while it is lent.
    const [burnt] = await sql<{ burn_equivalent: string }>(`select burn_equivalent from energy_delegations where purpose_id = ?`, [first]);
    const lentFee = await feeOf(byId.get(first)!.txid);
    const burntFee = await feeOf(byId.get(second)!.txid);
    expect(lentFee + burntFee).toBeGreaterThanOrEqual(10n * TRX);
    expect(lentFee + burntFee).toBeLessThan(BigInt(burnt!.burn_equivalent) + 1n * TRX);
    expect(await port.delegatedTo(energy, treasury)).toBe(0n);
    const summary = await s.uow.run((tx) => tx.energy.summary('TRON_TESTNET', new Date(Date.now() - 3_600_000)));
    expect(summary.fallbacks).toBeGreaterThanOrEqual(1);
    // What lent energy saved: the loan's burn equivalent less what its withdrawal's receipt shows it paid.
    expect(summary.burnAvoided).toBe(lentFee < BigInt(burnt!.burn_equivalent) ? BigInt(burnt!.burn_equivalent) - lentFee : 0n);
    const [onChain] = await sql<{ fee_paid: string }>(`select fee_paid from outgoing_transfers where id = ?`, [byId.get(first)!.transfer_id]);
    expect(BigInt(onChain!.fee_paid)).toBe(lentFee);
  });

  it('a faucet drip of USDT_TRON borrows the dispenser its energy and gives it back when the item is confirmed', async () => {
    // A new wallet has never held the token: its transfer takes 130,000 energy; 20,000 TRX more staked covers it
    // (what the first test's transfers used of the stake regenerates only over the hour's window).
    await stake({ kind: 'stake', amount: 20_000n * TRX });
    const s = sending();
    const wallet = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'TRON', asset: 'USDT_TRON' });
    expect(wallet.status).toBe(201);
    const drip: Drip = {
      id: randomUUID(),
      workspaceId: t.ws.workspaceId,
      network: 'TRON_TESTNET',
      walletId: wallet.body.id as string,
      address: wallet.body.address as string,
      status: 'QUEUED',
      items: [{ asset: 'USDT_TRON', amount: 50_000_000n, status: 'QUEUED', transferId: null }],
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    await s.uow.run((tx) => tx.faucet.add(drip));
    const first = await step(s);
    expect(first.drips).toMatchObject({ requested: 0, energyWaiting: 1 });
    let loans: Awaited<ReturnType<typeof loansOf>> = [];
    for (let i = 0; i < 20; i++) {
      await step(s);
      loans = await loansOf(drip.id);
      const [row] = await sql<{ status: string }>(`select status from faucet_drips where id = ?`, [drip.id]);
      if (row?.status === 'COMPLETED' && loans[0]?.status === 'RECLAIMED') break;
    }
    const [row] = await sql<{ status: string }>(`select status from faucet_drips where id = ?`, [drip.id]);
    expect(row?.status).toBe('COMPLETED');
    expect(loans).toMatchObject([{ status: 'RECLAIMED', receiver: dispenser, used_by: expect.any(String) }]);
    const [transfer] = await sql<{ kind: string; included_txid: string }>(`select kind, included_txid from outgoing_transfers where id = ?`, [loans[0]!.used_by]);
    expect(transfer!.kind).toBe('FAUCET');
    expect(await feeOf(transfer!.included_txid)).toBeLessThan(1n * TRX);
    expect(await port.delegatedTo(energy, dispenser)).toBe(0n);
  });

  it('takes back a loan whose withdrawal was cancelled while it waited for it', async () => {
    const s = sending();
    const id = await withdraw('20');
    await step(s);
    expect((await loansOf(id))[0]?.status).toBe('DELEGATING');
    const cancel = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', `/v2/withdrawals/${id}/cancel`, {});
    expect(cancel.status).toBe(200);
    let loans: { status: string }[] = [];
    for (let i = 0; i < 15; i++) {
      await step(s);
      loans = await loansOf(id);
      if (loans[0]?.status === 'RECLAIMED') break;
    }
    expect(loans).toMatchObject([{ status: 'RECLAIMED' }]);
    expect((await sql<{ transfer_id: string | null }>(`select transfer_id from withdrawals where id = ?`, [id]))[0]!.transfer_id).toBeNull();
    expect(await port.delegatedTo(energy, treasury)).toBe(0n);
    const open = await s.uow.run((tx) => tx.energy.openCounts('TRON_TESTNET', new Date(0)));
    expect(open).toEqual({ open: 0, lent: 0, failing: 0 });
  });
});
