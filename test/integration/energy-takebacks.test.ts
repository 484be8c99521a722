// Take-backs of lent energy that fail (issue 34, ADR 0035): the stake must
// never stay with an address. A take-back recorded as failed is asked again
// while the chain shows the stake lent; a loan is closed without one only
// when every node, each past the delegation's block, shows nothing lent — a
// node behind it shows nothing too, and its word is not enough. The real
// LendEnergy, pipeline, TRON adapter and PostgreSQL, on the stand-in, with a
// lagging URL in front of it.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronChainPort } from '../../src/adapters/chains/tron-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { LendEnergy } from '../../src/application/energy/lend-energy.js';
import { TOKENS } from '../../src/application/tokens.js';
import { ProcessTransfers, TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import type { EnergyDelegation } from '../../src/domain/energy/delegation.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { TEST_SEED, useTestApi } from '../support/harness.js';
import { freePort } from '../support/free-port.js';
import { startTestTron, type TestTron } from '../support/tron-chain.js';

const TRX = 1_000_000n;
const t = useTestApi({ workspace: 'energy-takebacks' });
const signer = new LocalHdSigner(TEST_SEED);
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
let tron: TestTron;
let port: TronChainPort;
/** The stand-in and a URL whose head is block 1 (a backend far behind): it shows nothing lent to anyone. */
let withLaggard: TronChainPort;
let laggard: Server;
let energy: string;
let treasury: string;

function parts() {
  const container = t.api.infra.container.createChildContainer();
  container.register(TOKENS.Signer, { useValue: signer });
  container.registerInstance(TransferOutcomes, new TransferOutcomes());
  return { uow: container.resolve<UnitOfWork>(TOKENS.UnitOfWork), lend: container.resolve(LendEnergy), pipeline: container.resolve(ProcessTransfers) };
}
type Parts = ReturnType<typeof parts>;

const loanRow = async (uow: UnitOfWork, id: string) => (await uow.run((tx) => tx.energy.list('TRON_TESTNET', ['DELEGATING', 'DELEGATED', 'RECLAIMING', 'RECLAIMED', 'CANCELLED'], 1000))).find((d) => d.id === id)!;

async function pipelineUntil(p: Parts, done: () => Promise<boolean>) {
  for (let i = 0; i < 15 && !(await done()); i++) {
    await p.pipeline.step(port, { replaceAfterMs: 60_000, rebroadcastAfterMs: 0, batch: 20 });
    await tron.mine();
  }
}

/** A loan to the treasury for a payout that no longer exists: confirmed, then asked back at once (its take-back REQUESTED). */
async function loanBeingTakenBack(p: Parts): Promise<EnergyDelegation> {
  const purposeId = randomUUID();
  const ready = await p.uow.run((tx) => p.lend.prepare(tx, { purpose: 'WITHDRAWAL', purposeId, network: 'TRON_TESTNET', receiver: treasury, estimate: 65_000n, burnEquivalent: 13_650_000n }, port));
  expect(ready.kind).toBe('waiting');
  const [row] = await sql<{ id: string }>(`select id from energy_delegations where purpose_id = ?`, [purposeId]);
  await pipelineUntil(p, async () => (await loanRow(p.uow, row!.id)).status === 'RECLAIMING');
  const loan = await loanRow(p.uow, row!.id);
  expect(loan.status).toBe('RECLAIMING');
  return loan;
}

/** The take-back as the pipeline would have recorded it failed (on chain or not, as the case says). */
async function recordFailed(loan: EnergyDelegation) {
  await sql(`update outgoing_transfers set status = 'FAILED', failure = 'expired' where id = ?`, [loan.reclaimTransferId]);
  await sql(`update energy_delegations set reclaim_failures = reclaim_failures + 1 where id = ?`, [loan.id]);
}

beforeAll(async () => {
  tron = await startTestTron({ resourceWindowSeconds: 3600 });
  port = new TronChainPort({ network: 'TRON_TESTNET', urls: [tron.standin.url], contracts: { USDT_TRON: tron.token }, retryDelayMs: 10, retryCount: 1 });
  laggard = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const behind = req.url === '/wallet/getnowblock';
      void fetch(`${tron.standin.url}${behind ? '/wallet/getblockbynum' : req.url}`, { method: 'POST', body: behind ? JSON.stringify({ num: 1 }) : Buffer.concat(chunks).toString('utf8') || undefined })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(await r.text());
        })
        .catch(() => res.destroy());
    });
  });
  const p = await freePort();
  await new Promise<void>((r) => laggard.listen(p, '127.0.0.1', () => r()));
  withLaggard = new TronChainPort({ network: 'TRON_TESTNET', urls: [tron.standin.url, `http://127.0.0.1:${p}`], contracts: { USDT_TRON: tron.token }, retryDelayMs: 10, retryCount: 1 });
  energy = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'energy'));
  treasury = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'treasury'));
  const fund = (a: string, sun: bigint) => rpc(tron.standin.anvil.rpcUrl, 'anvil_setBalance', [`0x${tron.tronWeb.address.toHex(a).slice(2)}`, `0x${sun.toString(16)}`]);
  await fund(energy, 30_000n * TRX);
  await fund(treasury, 10n * TRX);
  await tron.mine();
  const p0 = parts();
  await p0.uow.run((tx) => tx.energy.setPolicy({ network: 'TRON_TESTNET', source: 'stake', marginPercent: 10, maxWaitSeconds: 120, updatedAt: new Date() }));
  const stake = await p0.uow.run(async (tx) => {
    const id = randomUUID();
    const { requestTransfer } = await import('../../src/domain/transfers/outgoing-transfer.js');
    await tx.transfers.add(requestTransfer({ id, kind: 'ENERGY_STAKE', network: 'TRON_TESTNET', asset: 'TRX', from: energy, fromPath: servicePath('TRON_TESTNET', 'energy'), to: energy, amount: 20_000n * TRX, requestedAt: new Date(), feeCap: TRX }));
    return id;
  });
  await pipelineUntil(p0, async () => (await p0.uow.run((tx) => tx.transfers.get(stake)))?.status === 'CONFIRMED');
  expect((await port.stake(energy))!.staked).toBe(20_000n * TRX);
});

afterAll(async () => {
  await new Promise<void>((r) => laggard?.close(() => r()));
  await tron?.stop();
});

describe('a take-back that failed', () => {
  it('is asked again while the chain shows the stake still lent, until one is confirmed', async () => {
    const p = parts();
    const loan = await loanBeingTakenBack(p);
    await recordFailed(loan); // never sent: the stake is still with the treasury
    expect(await port.delegatedTo(energy, treasury)).toBe(loan.stake);
    expect(await p.uow.run((tx) => p.lend.tidy(tx, 'TRON_TESTNET', 10, port))).toBe(1);
    const again = await loanRow(p.uow, loan.id);
    expect(again).toMatchObject({ status: 'RECLAIMING', reclaimFailures: 1 });
    expect(again.reclaimTransferId).not.toBe(loan.reclaimTransferId);
    expect(await p.uow.run((tx) => p.lend.tidy(tx, 'TRON_TESTNET', 10, port))).toBe(0); // the new one is on its way: once
    await pipelineUntil(p, async () => (await loanRow(p.uow, loan.id)).status === 'RECLAIMED');
    expect((await loanRow(p.uow, loan.id)).status).toBe('RECLAIMED');
    expect(await port.delegatedTo(energy, treasury)).toBe(0n);
    expect(await p.uow.run((tx) => tx.energy.openCounts('TRON_TESTNET', new Date(0)))).toEqual({ open: 0, lent: 0, failing: 0 });
  });

  it('closes a loan whose stake is back on chain only when every node, past the delegation, shows it back', async () => {
    const p = parts();
    const loan = await loanBeingTakenBack(p);
    // The take-back lands, but the books say it failed (the case a wrong verdict or a late landing leaves).
    await pipelineUntil(p, async () => (await p.uow.run((tx) => tx.transfers.get(loan.reclaimTransferId!)))?.status === 'CONFIRMED');
    expect(await port.delegatedTo(energy, treasury)).toBe(0n);
    await sql(`update energy_delegations set status = 'RECLAIMING' where id = ?`, [loan.id]);
    await recordFailed(loan);
    expect(await p.uow.run((tx) => tx.energy.openCounts('TRON_TESTNET', new Date(0)))).toEqual({ open: 1, lent: 0, failing: 1 });
    // A URL far behind the delegation says nothing is lent, as it would before the loan: not a verdict. The take-back
    // is asked again instead (which the node refuses, nothing being lent: it fails, and the loan stays visible).
    const lentAt = (await p.uow.run((tx) => tx.transfers.get(loan.delegateTransferId)))!.included!.blockNumber;
    expect(lentAt).toBeGreaterThan(1n);
    expect(await withLaggard.delegatedOnEveryNode(energy, treasury, lentAt)).toBeNull();
    expect(await port.delegatedOnEveryNode(energy, treasury, lentAt)).toBe(0n);
    expect(await p.uow.run((tx) => p.lend.tidy(tx, 'TRON_TESTNET', 10, withLaggard))).toBe(1);
    const asked = await loanRow(p.uow, loan.id);
    expect(asked.status).toBe('RECLAIMING');
    await pipelineUntil(p, async () => (await p.uow.run((tx) => tx.transfers.get(asked.reclaimTransferId!)))?.status === 'FAILED');
    const refused = await p.uow.run((tx) => tx.transfers.get(asked.reclaimTransferId!));
    expect(refused).toMatchObject({ status: 'FAILED', attempts: [] });
    expect(await p.uow.run((tx) => tx.energy.openCounts('TRON_TESTNET', new Date(0)))).toEqual({ open: 1, lent: 0, failing: 1 });
    // Every node past the delegation shows it back: seen once, nothing asked; closed only when they still do 20
    // blocks later (a pooled URL may have answered from a backend behind the delegation), no new transfer.
    const transfers = (await sql<{ n: string }>(`select count(*)::text as n from outgoing_transfers where kind = 'ENERGY_RECLAIM'`))[0]!.n;
    expect(await p.uow.run((tx) => p.lend.tidy(tx, 'TRON_TESTNET', 10, port))).toBe(0);
    expect((await loanRow(p.uow, loan.id)).status).toBe('RECLAIMING');
    await tron.mine(10);
    expect(await p.uow.run((tx) => p.lend.tidy(tx, 'TRON_TESTNET', 10, port))).toBe(0);
    expect((await loanRow(p.uow, loan.id)).status).toBe('RECLAIMING');
    await tron.mine(10);
    expect(await p.uow.run((tx) => p.lend.tidy(tx, 'TRON_TESTNET', 10, port))).toBe(0);
    expect((await loanRow(p.uow, loan.id)).status).toBe('RECLAIMED');
    expect((await sql<{ n: string }>(`select count(*)::text as n from outgoing_transfers where kind = 'ENERGY_RECLAIM'`))[0]!.n).toBe(transfers);
    expect(await p.uow.run((tx) => tx.energy.openCounts('TRON_TESTNET', new Date(0)))).toEqual({ open: 0, lent: 0, failing: 0 });
  });
});
