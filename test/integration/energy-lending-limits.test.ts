// What keeps lending from spending the energy account's TRX for nothing
// (issue 34, ADR 0035): no loan for a sweep the gas tank cannot fund (it
// would come back unused); a sweep or payout that borrowed twice and sent
// nothing burns instead of borrowing again; the energy account keeps the
// bytes of the take-backs its open loans still need, and lends nothing it
// could not take back. The real LendEnergy, TRON sweep step, pipeline and
// PostgreSQL on the stand-in.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronChainPort } from '../../src/adapters/chains/tron-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { LendEnergy } from '../../src/application/energy/lend-energy.js';
import { STAKE_TX_FEE_CAP } from '../../src/application/energy/manage-energy.js';
import type { SweepStepReport } from '../../src/application/sweeps/run-sweeps.js';
import { advanceTronSweep, type TronSweepDeps } from '../../src/application/sweeps/tron-sweeps.js';
import { TOKENS } from '../../src/application/tokens.js';
import { ProcessTransfers, TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import { depositPath, servicePath } from '../../src/domain/custody/derivation.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { requestTransfer } from '../../src/domain/transfers/outgoing-transfer.js';
import type { Sweep } from '../../src/domain/transfers/sweep.js';
import { TEST_SEED, useTestApi } from '../support/harness.js';
import { startTestTron, type TestTron } from '../support/tron-chain.js';

const TRX = 1_000_000n;
const t = useTestApi({ workspace: 'energy-limits' });
const signer = new LocalHdSigner(TEST_SEED);
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
let tron: TestTron;
let port: TronChainPort;
let energy: string;
let treasury: string;

function parts() {
  const container = t.api.infra.container.createChildContainer();
  container.register(TOKENS.Signer, { useValue: signer });
  container.registerInstance(TransferOutcomes, new TransferOutcomes());
  return { uow: container.resolve<UnitOfWork>(TOKENS.UnitOfWork), lend: container.resolve(LendEnergy), pipeline: container.resolve(ProcessTransfers) };
}
const fund = (a: string, sun: bigint) => rpc(tron.standin.anvil.rpcUrl, 'anvil_setBalance', [`0x${tron.tronWeb.address.toHex(a).slice(2)}`, `0x${sun.toString(16)}`]);
const emptyReport = (): SweepStepReport =>
  ({ started: 0, toppedUp: 0, sweeping: 0, swept: 0, failed: 0, errors: [], nothingOnChain: [], gasTankLow: null, energyWaiting: 0, onEnergy: 0, energyFallbacks: [], reclaimed: 0, energy: null }) as unknown as SweepStepReport;
const loansOf = (purposeId: string) => sql<{ status: string }>(`select status from energy_delegations where purpose_id = ?`, [purposeId]);

beforeAll(async () => {
  tron = await startTestTron({ resourceWindowSeconds: 3600 });
  port = new TronChainPort({ network: 'TRON_TESTNET', urls: [tron.standin.url], contracts: { USDT_TRON: tron.token }, retryDelayMs: 10, retryCount: 1 });
  energy = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'energy'));
  treasury = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'treasury'));
  await fund(energy, 30_000n * TRX);
  await fund(treasury, 10n * TRX);
  await tron.mine();
  const p = parts();
  await p.uow.run((tx) => tx.energy.setPolicy({ network: 'TRON_TESTNET', source: 'stake', marginPercent: 10, maxWaitSeconds: 120, updatedAt: new Date() }));
  const id = randomUUID();
  await p.uow.run((tx) =>
    tx.transfers.add(requestTransfer({ id, kind: 'ENERGY_STAKE', network: 'TRON_TESTNET', asset: 'TRX', from: energy, fromPath: servicePath('TRON_TESTNET', 'energy'), to: energy, amount: 20_000n * TRX, requestedAt: new Date(), feeCap: TRX })),
  );
  for (let i = 0; i < 10 && (await p.uow.run((tx) => tx.transfers.get(id)))?.status !== 'CONFIRMED'; i++) {
    await p.pipeline.step(port, { replaceAfterMs: 60_000, rebroadcastAfterMs: 0, batch: 10 });
    await tron.mine();
  }
  expect((await port.stake(energy))!.staked).toBe(20_000n * TRX);
});

afterAll(async () => {
  await tron?.stop();
});

describe('lending within limits', () => {
  it('asks no loan for a sweep whose address needs a top-up the gas tank cannot pay: it waits for the gas tank', async () => {
    const p = parts();
    const path = depositPath('TRON', 7, 1);
    const address = await signer.deriveAddress('TRON', path);
    const minted = await tron.callToken('mint(address,uint256)', [
      { type: 'address', value: address },
      { type: 'uint256', value: '20000000' },
    ]);
    expect(minted.result).toBe(true);
    await fund(address, 1n); // an address that exists (swept before) with too little TRX for its bytes
    await tron.mine();
    expect(await port.resources(address)).not.toBeNull();
    const dryTank = await signer.deriveAddress('TRON', depositPath('TRON', 7, 2)); // holds nothing
    const sweep: Sweep = {
      id: randomUUID(),
      network: 'TRON_TESTNET',
      asset: 'USDT_TRON',
      walletId: randomUUID(),
      address,
      addressPath: path,
      status: 'WAITING_GAS',
      depositTotal: 20_000_000n,
      topUpTransferId: null,
      sweepTransferId: null,
      failure: null,
      returnOf: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    };
    const report = emptyReport();
    const deps: TronSweepDeps = {
      now: () => new Date(),
      transfer: () => {
        throw new Error('nothing may be requested');
      },
      serviceAddress: async () => dryTank,
      energy: p.lend,
    };
    await p.uow.run((tx) => advanceTronSweep(deps, tx, sweep, port, report, treasury, 20_000_000n));
    expect(report.gasTankLow).toMatchObject({ address: dryTank, available: 0n });
    expect(report.energyWaiting).toBe(0);
    expect(await loansOf(sweep.id)).toEqual([]);
    // Once the gas tank holds TRX, the same sweep asks its loan.
    await fund(dryTank, 100n * TRX);
    await tron.mine();
    const next = emptyReport();
    const requested: string[] = [];
    const transfer: TronSweepDeps['transfer'] = (s, fields) => {
      const made = requestTransfer({ id: randomUUID(), network: s.network, requestedAt: new Date(), ownerId: s.id, ...fields });
      requested.push(made.id);
      return made;
    };
    await p.uow.run((tx) => advanceTronSweep({ ...deps, transfer }, tx, sweep, port, next, treasury, 20_000_000n));
    expect(next).toMatchObject({ gasTankLow: null, energyWaiting: 1 });
    expect(await loansOf(sweep.id)).toMatchObject([{ status: 'DELEGATING' }]);
    expect(requested).toEqual([]); // the loan first; the top-up of its bytes once it has landed
    // This sweep has no row: its loan is taken back as soon as it lands.
    for (let i = 0; i < 15 && (await loansOf(sweep.id))[0]?.status !== 'RECLAIMED'; i++) {
      await p.pipeline.step(port, { replaceAfterMs: 60_000, rebroadcastAfterMs: 0, batch: 10 });
      await tron.mine();
    }
    expect(await loansOf(sweep.id)).toMatchObject([{ status: 'RECLAIMED' }]);
  });

  it('burns instead of borrowing a third time for a sweep or payout that sent nothing on two loans', async () => {
    const p = parts();
    const purposeId = randomUUID();
    const need = { purpose: 'WITHDRAWAL' as const, purposeId, network: 'TRON_TESTNET' as const, receiver: treasury, estimate: 65_000n, burnEquivalent: 13_650_000n };
    for (let round = 0; round < 2; round++) {
      expect((await p.uow.run((tx) => p.lend.prepare(tx, need, port))).kind).toBe('waiting');
      // The payout is gone (no such withdrawal): its loan is taken back as soon as it lands, unused.
      for (let i = 0; i < 15 && !(await loansOf(purposeId)).every((l) => l.status === 'RECLAIMED'); i++) {
        await p.pipeline.step(port, { replaceAfterMs: 60_000, rebroadcastAfterMs: 0, batch: 10 });
        await tron.mine();
      }
      expect((await loansOf(purposeId)).map((l) => l.status)).toEqual(Array(round + 1).fill('RECLAIMED'));
    }
    expect(await p.uow.run((tx) => p.lend.prepare(tx, need, port))).toEqual({ kind: 'burn', reason: 'waited_too_long', first: true });
    expect(await loansOf(purposeId)).toHaveLength(2);
  });

  it('burns to the end once it fell back: a loan landing later is not used, and it is counted once', async () => {
    const p = parts();
    const need = { purpose: 'SWEEP' as const, purposeId: randomUUID(), network: 'TRON_TESTNET' as const, receiver: treasury, estimate: 20_000n, burnEquivalent: 4_200_000n };
    expect((await p.uow.run((tx) => p.lend.prepare(tx, need, port))).kind).toBe('waiting');
    // It gave up waiting (recorded as the step that burns records it): the loan still on its way no longer counts.
    expect(await p.uow.run((tx) => tx.energy.recordFallback('TRON_TESTNET', 'SWEEP', need.purposeId, 'waited_too_long', new Date()))).toBe(true);
    expect(await p.uow.run((tx) => p.lend.prepare(tx, need, port))).toEqual({ kind: 'burn', reason: 'waited_too_long', first: false });
    for (let i = 0; i < 15 && (await loansOf(need.purposeId))[0]?.status !== 'RECLAIMED'; i++) {
      await p.pipeline.step(port, { replaceAfterMs: 60_000, rebroadcastAfterMs: 0, batch: 10 });
      await tron.mine();
    }
    expect(await loansOf(need.purposeId)).toMatchObject([{ status: 'RECLAIMED' }]);
    expect(await p.uow.run((tx) => p.lend.prepare(tx, need, port))).toEqual({ kind: 'burn', reason: 'waited_too_long', first: false });
  });

  it('keeps the bytes of its open loans’ take-backs, and lends nothing it could not take back', async () => {
    const p = parts();
    // Three small loans asked (none on chain yet): their take-backs are owed.
    for (let i = 0; i < 3; i++) {
      const ready = await p.uow.run((tx) => p.lend.prepare(tx, { purpose: 'SWEEP', purposeId: randomUUID(), network: 'TRON_TESTNET', receiver: treasury, estimate: 20_000n, burnEquivalent: 4_200_000n }, port));
      expect(ready.kind).toBe('waiting');
    }
    const counts = await p.uow.run((tx) => tx.energy.openCounts('TRON_TESTNET', new Date(0)));
    expect(counts.lent).toBe(3);
    // Liquid TRX: this loan and its take-back, plus the three take-backs owed, less one sun; the delegations asked
    // (each up to STAKE_TX_FEE_CAP) are reserved by the pipeline's committed outflow.
    const committed = await p.uow.run((tx) => tx.transfers.committedOutflow('TRON_TESTNET', energy, 'TRX'));
    await fund(energy, committed + (2n + 3n) * STAKE_TX_FEE_CAP - 1n);
    await tron.mine();
    const low = await p.uow.run((tx) => p.lend.prepare(tx, { purpose: 'SWEEP', purposeId: randomUUID(), network: 'TRON_TESTNET', receiver: treasury, estimate: 20_000n, burnEquivalent: 4_200_000n }, port));
    expect(low).toMatchObject({ kind: 'burn', reason: 'energy_account_low' });
    await fund(energy, committed + (2n + 3n) * STAKE_TX_FEE_CAP);
    await tron.mine();
    const enough = await p.uow.run((tx) => p.lend.prepare(tx, { purpose: 'SWEEP', purposeId: randomUUID(), network: 'TRON_TESTNET', receiver: treasury, estimate: 20_000n, burnEquivalent: 4_200_000n }, port));
    expect(enough.kind).toBe('waiting');
  });
});
