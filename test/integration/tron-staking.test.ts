// TRON's Stake 2.0 through the service's own adapter and sending pipeline
// (issue 34), against the stand-in that models java-tron's rules: the five
// transactions are built by the node and signed only when they say what was
// asked; the pipeline carries each as its own transfer kind to CONFIRMED; the
// reads (resources, stake, delegations) say what the chain did.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronChainPort } from '../../src/adapters/chains/tron-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { ProcessTransfers, TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import { TOKENS } from '../../src/application/tokens.js';
import { ChainUnavailableError } from '../../src/domain/chains/chain-port.js';
import { depositPath, servicePath } from '../../src/domain/custody/derivation.js';
import { energyAvailable, energyOfStake, stakeForEnergy, type StakeOperation } from '../../src/domain/energy/resources.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { requestTransfer, type TransferKind } from '../../src/domain/transfers/outgoing-transfer.js';
import { TransferRefused, type SignDigest } from '../../src/domain/transfers/ports.js';
import { TEST_SEED, useTestApi } from '../support/harness.js';
import { freePort } from '../support/free-port.js';
import { startTestTron, type TestTron } from '../support/tron-chain.js';

const TRX = 1_000_000n;
const t = useTestApi({ workspace: 'staking' });
const signer = new LocalHdSigner(TEST_SEED);
const energyPath = servicePath('TRON_TESTNET', 'energy');
const keyOf = (path = energyPath): SignDigest => (digest) => signer.signDigest('TRON', path, digest);
let tron: TestTron;
let port: TronChainPort;
let energy: string;
let receiver: string;
/** A node between the adapter and the stand-in that may rewrite one build request's body. */
let proxy: { url: string; server: Server; rewrite: ((path: string, body: Record<string, unknown>) => Record<string, unknown>) | null };

async function fund(address: string, sun: bigint) {
  const hex = `0x${Buffer.from(tron.tronWeb.address.toHex(address).slice(2), 'hex').toString('hex')}`;
  await rpc(tron.standin.anvil.rpcUrl, 'anvil_setBalance', [hex, `0x${sun.toString(16)}`]);
}

async function send(op: StakeOperation, key = keyOf()): Promise<string> {
  const signed = await port.sign({ asset: 'TRX', from: energy, to: 'receiver' in op ? op.receiver : energy, amount: 'amount' in op ? op.amount : 1n, nonce: null, gasLimit: null, fees: null, feeLimit: null, stake: op }, key);
  expect(await port.broadcast(signed.raw)).toBe('accepted');
  await tron.mine();
  const receipt = await port.sentReceipt(signed.txid);
  expect(receipt?.status, op.kind).toBe('success');
  return signed.txid;
}

beforeAll(async () => {
  tron = await startTestTron({ resourceWindowSeconds: 3600, unfreezeDelaySeconds: 2 });
  const forward = tron.standin.url;
  proxy = { url: '', server: createServer(), rewrite: null };
  proxy.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      if (proxy.rewrite && body) body = JSON.stringify(proxy.rewrite(path, JSON.parse(body) as Record<string, unknown>));
      void fetch(`${forward}${path}`, { method: req.method, body: body || undefined, headers: { 'content-type': 'application/json' } })
        .then(async (r) => {
          res.writeHead(r.status, { 'content-type': 'application/json' });
          res.end(await r.text());
        })
        .catch(() => res.destroy());
    });
  });
  const p = await freePort();
  await new Promise<void>((r) => proxy.server.listen(p, '127.0.0.1', () => r()));
  proxy.url = `http://127.0.0.1:${p}`;
  port = new TronChainPort({ network: 'TRON_TESTNET', urls: [proxy.url], contracts: { USDT_TRON: tron.token }, retryDelayMs: 10, retryCount: 1 });
  energy = await signer.deriveAddress('TRON', energyPath);
  receiver = await signer.deriveAddress('TRON', depositPath('TRON', 9, 1));
  await fund(energy, 100_000n * TRX);
  await fund(receiver, 1n * TRX); // activated: energy is never delegated to an account that does not exist
  await tron.mine();
});

afterAll(async () => {
  await new Promise<void>((r) => proxy?.server.close(() => r()));
  await tron?.stop();
});

describe('Stake 2.0 through the TRON adapter', () => {
  it('reads a never-activated account as null, and an activated one’s resources and stake', async () => {
    const nobody = await signer.deriveAddress('TRON', depositPath('TRON', 9, 99));
    expect(await port.resources(nobody)).toBeNull();
    expect(await port.stake(nobody)).toBeNull();
    const r = (await port.resources(energy))!;
    expect(r.energyLimit).toBe(0n);
    expect(r.totalEnergyLimit).toBeGreaterThan(0n);
    expect(r.freeBandwidthLimit).toBe(600n);
    expect(await port.stake(energy)).toEqual({ balance: 100_000n * TRX, staked: 0n, delegated: 0n, acquired: 0n, unfreezing: [] });
  });

  it('stakes, delegates and takes back, each read back from the chain', async () => {
    await send({ kind: 'stake', amount: 60_000n * TRX });
    const r = (await port.resources(energy))!;
    expect(r.energyLimit).toBe(energyOfStake(60_000n * TRX, r));
    expect((await port.stake(energy))!.staked).toBe(60_000n * TRX);
    const lend = stakeForEnergy(130_000n, r);
    await send({ kind: 'delegate', receiver, amount: lend });
    expect(await port.delegatedTo(energy, receiver)).toBe(lend);
    expect(energyAvailable((await port.resources(receiver))!)).toBeGreaterThanOrEqual(130_000n);
    expect((await port.stake(energy))!).toMatchObject({ staked: 60_000n * TRX - lend, delegated: lend });
    expect((await port.stake(receiver))!.acquired).toBe(lend);
    await send({ kind: 'reclaim', receiver, amount: lend });
    expect(await port.delegatedTo(energy, receiver)).toBe(0n);
    expect((await port.stake(energy))!).toMatchObject({ staked: 60_000n * TRX, delegated: 0n });
  });

  it('unstakes, and withdraws once the delay has passed', async () => {
    await send({ kind: 'unstake', amount: 10_000n * TRX });
    const stake = (await port.stake(energy))!;
    expect(stake.staked).toBe(50_000n * TRX);
    expect(stake.unfreezing.map((u) => u.amount)).toEqual([10_000n * TRX]);
    const before = stake.balance;
    await new Promise((r) => setTimeout(r, 2500));
    await send({ kind: 'withdraw_unstaked' });
    const after = (await port.stake(energy))!;
    expect(after.unfreezing).toEqual([]);
    expect(after.balance).toBeGreaterThan(before + 9_999n * TRX); // the 10,000 TRX less at most its bandwidth
  });

  it('never signs a Stake 2.0 transaction the node built otherwise: another receiver, another amount', async () => {
    const other = await signer.deriveAddress('TRON', depositPath('TRON', 9, 2));
    await fund(other, 1n * TRX);
    await tron.mine();
    // A delegation to the other account, so that a rewritten reclaim is one the node would build.
    await send({ kind: 'delegate', receiver: other, amount: 4n * TRX });
    const otherHex = tron.tronWeb.address.toHex(other).toLowerCase();
    const cases: [string, (b: Record<string, unknown>) => Record<string, unknown>, StakeOperation][] = [
      ['/wallet/delegateresource', (b) => ({ ...b, receiver_address: otherHex }), { kind: 'delegate', receiver, amount: 2n * TRX }],
      ['/wallet/delegateresource', (b) => ({ ...b, balance: 2 * (b.balance as number) }), { kind: 'delegate', receiver, amount: 2n * TRX }],
      ['/wallet/undelegateresource', (b) => ({ ...b, receiver_address: otherHex }), { kind: 'reclaim', receiver, amount: 2n * TRX }],
      ['/wallet/freezebalancev2', (b) => ({ ...b, frozen_balance: 2 * (b.frozen_balance as number) }), { kind: 'stake', amount: 3n * TRX }],
      ['/wallet/unfreezebalancev2', (b) => ({ ...b, unfreeze_balance: 2 * (b.unfreeze_balance as number) }), { kind: 'unstake', amount: 3n * TRX }],
    ];
    for (const [path, change, op] of cases) {
      proxy.rewrite = (p, body) => (p === path ? change(body) : body);
      try {
        const err = await port.sign({ asset: 'TRX', from: energy, to: energy, amount: 1n, nonce: null, gasLimit: null, fees: null, feeLimit: null, stake: op }, keyOf()).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err, path).toBeInstanceOf(ChainUnavailableError);
        expect((err as Error).message, path).toMatch(/differs from the stake operation asked for: not signed/);
      } finally {
        proxy.rewrite = null;
      }
    }
  });

  it('takes the node’s validation refusal as a refusal, in java-tron’s words', async () => {
    const sign = (op: StakeOperation) =>
      port.sign({ asset: 'TRX', from: energy, to: energy, amount: 1n, nonce: null, gasLimit: null, fees: null, feeLimit: null, stake: op }, keyOf()).then(
        () => null,
        (e: unknown) => e as Error,
      );
    const tooMuch = await sign({ kind: 'delegate', receiver, amount: 1_000_000n * TRX });
    expect(tooMuch).toBeInstanceOf(TransferRefused);
    expect(tooMuch!.message).toMatch(/delegateresource refused by the node: delegateBalance must be less than or equal to available FreezeEnergyV2 balance/);
    const nothing = await sign({ kind: 'reclaim', receiver: await signer.deriveAddress('TRON', depositPath('TRON', 9, 3)), amount: 1n * TRX });
    expect(nothing).toBeInstanceOf(TransferRefused);
  });
});

describe('Stake 2.0 through the outgoing-transfer pipeline', () => {
  it('carries each Stake 2.0 kind to CONFIRMED, once', async () => {
    const container = t.api.infra.container.createChildContainer();
    container.register(TOKENS.Signer, { useValue: signer });
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const pipeline = container.resolve(ProcessTransfers);
    const uow = container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const opts = { replaceAfterMs: 60_000, rebroadcastAfterMs: 0, batch: 10 };
    const r = (await port.resources(energy))!;
    const lend = stakeForEnergy(65_000n, r);
    const kinds: [TransferKind, string, bigint][] = [
      ['ENERGY_STAKE', energy, 1_000n * TRX],
      ['ENERGY_DELEGATE', receiver, lend],
      ['ENERGY_RECLAIM', receiver, lend],
    ];
    for (const [kind, to, amount] of kinds) {
      const transfer = requestTransfer({ id: randomUUID(), kind, network: 'TRON_TESTNET', asset: 'TRX', from: energy, fromPath: energyPath, to, amount, requestedAt: new Date(), feeCap: 1n * TRX });
      await uow.run((tx) => tx.transfers.add(transfer));
      const stakedBefore = (await port.stake(energy))!.staked;
      for (let i = 0; i < 12; i++) {
        await pipeline.step(port, opts);
        const now = (await uow.run((tx) => tx.transfers.get(transfer.id)))!;
        if (now.status === 'CONFIRMED') break;
        await tron.mine();
      }
      const done = (await uow.run((tx) => tx.transfers.get(transfer.id)))!;
      expect(done.status, kind).toBe('CONFIRMED');
      expect(done.attempts, kind).toHaveLength(1);
      const staked = (await port.stake(energy))!.staked;
      expect(staked - stakedBefore, kind).toBe(kind === 'ENERGY_STAKE' ? amount : kind === 'ENERGY_DELEGATE' ? -amount : amount);
    }
    expect(await port.delegatedTo(energy, receiver)).toBe(0n);
  });

  it('fails a Stake 2.0 transfer the node refuses to build, never signed, instead of asking for it for ever', async () => {
    const container = t.api.infra.container.createChildContainer();
    container.register(TOKENS.Signer, { useValue: signer });
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const pipeline = container.resolve(ProcessTransfers);
    const uow = container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const transfer = requestTransfer({ id: randomUUID(), kind: 'ENERGY_DELEGATE', network: 'TRON_TESTNET', asset: 'TRX', from: energy, fromPath: energyPath, to: receiver, amount: 10_000_000n * TRX, requestedAt: new Date(), feeCap: 1n * TRX });
    await uow.run((tx) => tx.transfers.add(transfer));
    const report = await pipeline.step(port, { replaceAfterMs: 60_000, rebroadcastAfterMs: 0, batch: 10 });
    expect(report.failed.map((f) => f.id)).toEqual([transfer.id]);
    const done = (await uow.run((tx) => tx.transfers.get(transfer.id)))!;
    expect(done).toMatchObject({ status: 'FAILED', attempts: [] });
    expect(done.failure).toMatch(/refused by the node: .*delegateBalance must be less than or equal to available FreezeEnergyV2 balance/);
  });
});

describe('a Stake 2.0 transfer signed anew', () => {
  it('fails, never signed again, when every attempt expired unseen and the node now refuses to build it', async () => {
    const container = t.api.infra.container.createChildContainer();
    container.register(TOKENS.Signer, { useValue: signer });
    container.registerInstance(TransferOutcomes, new TransferOutcomes());
    const pipeline = container.resolve(ProcessTransfers);
    const uow = container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const opts = { replaceAfterMs: 60_000, rebroadcastAfterMs: 0, batch: 10 };
    const transfer = requestTransfer({ id: randomUUID(), kind: 'ENERGY_DELEGATE', network: 'TRON_TESTNET', asset: 'TRX', from: energy, fromPath: energyPath, to: receiver, amount: 2n * TRX, requestedAt: new Date(), feeCap: 1n * TRX });
    await uow.run((tx) => tx.transfers.add(transfer));
    // Signed, but no broadcast reaches the node.
    proxy.rewrite = (path, body) => (path === '/wallet/broadcasttransaction' ? {} : body);
    try {
      await pipeline.step(port, opts);
      const signed = (await uow.run((tx) => tx.transfers.get(transfer.id)))!;
      expect(signed.attempts).toHaveLength(1);
      expect(signed.status === 'SIGNED' || signed.status === 'BROADCAST').toBe(true);
      // Meanwhile the whole stake is unstaked: the same delegation can no longer be built.
      proxy.rewrite = null;
      const staked = (await port.stake(energy))!.staked;
      await send({ kind: 'unstake', amount: staked });
      proxy.rewrite = (path, body) => (path === '/wallet/broadcasttransaction' ? {} : body);
      // Past its expiration by more than the finality depth: 64 blocks three seconds apart.
      await rpc(tron.standin.anvil.rpcUrl, 'anvil_mine', ['0x40', '0x3']);
      let now = signed;
      for (let i = 0; i < 40 && now.status !== 'FAILED'; i++) {
        await pipeline.step(port, opts);
        await tron.mine();
        now = (await uow.run((tx) => tx.transfers.get(transfer.id)))!;
      }
      expect(now.status).toBe('FAILED');
      expect(now.failure).toMatch(/refused by the node: .*delegateBalance must be less than or equal to available FreezeEnergyV2 balance/);
      expect(now.attempts).toHaveLength(1); // nothing signed again
      expect(await port.sentReceipt(now.attempts[0]!.txid)).toBeNull();
    } finally {
      proxy.rewrite = null;
    }
  });
});
