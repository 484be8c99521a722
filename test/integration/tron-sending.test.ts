// The TRON adapter's sending side against the sandbox's stand-in, signed by
// the real HD signer: TRX to an address never activated pays its activation;
// a USDT transfer burns its energy and bandwidth, within the estimate; a
// fee_limit below the energy runs out of it (included, failed, the limit
// burnt); an account that does not exist cannot call a contract; a node that
// builds another transaction than asked is never signed for; an expired
// transaction is dead; a broadcast the node already has is "known".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utils as tronUtils } from 'tronweb';
import { createHash } from 'node:crypto';
import { TronChainPort } from '../../src/adapters/chains/tron-chain.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { depositPath, servicePath } from '../../src/domain/custody/derivation.js';
import { BroadcastRejected, TransferRefused, type SignDigest, type UnsignedTransfer } from '../../src/domain/transfers/ports.js';
import { tronSweepBudget } from '../../src/domain/transfers/sweep.js';
import { ChainUnavailableError } from '../../src/domain/chains/chain-port.js';
import { TEST_SEED, failure } from '../support/harness.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';
import { startTestTron, type TestTron } from '../support/tron-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';

const TRX = 1_000_000n;
let tron: TestTron;
let proxy: RpcProxy;
let port: TronChainPort;
const signer = new LocalHdSigner(TEST_SEED);
let tank: string;
let fresh: string;
let signs = 0;

const keyOf =
  (path: ReturnType<typeof depositPath>): SignDigest =>
  (digest) => {
    signs++;
    return signer.signDigest('TRON', path, digest);
  };
const tankKey = keyOf(servicePath('TRON_TESTNET', 'gasTank'));
const freshKey = keyOf(depositPath('TRON', 7, 1));

const trx = async (address: string) => port.nativeBalance(address);
const unsigned = (fields: Partial<UnsignedTransfer> & Pick<UnsignedTransfer, 'asset' | 'from' | 'to' | 'amount'>): UnsignedTransfer => ({
  nonce: null,
  gasLimit: null,
  fees: null,
  feeLimit: null,
  ...fields,
});

beforeAll(async () => {
  tron = await startTestTron();
  proxy = await startRpcProxy(tron.standin.url);
  port = new TronChainPort({ network: 'TRON_TESTNET', urls: [proxy.url], contracts: { USDT_TRON: tron.token }, retryDelayMs: 10, retryCount: 1, timeoutMs: 5000 });
  tank = await signer.deriveAddress('TRON', servicePath('TRON_TESTNET', 'gasTank'));
  fresh = await signer.deriveAddress('TRON', depositPath('TRON', 7, 1));
  await tron.tronWeb.trx.sendTrx(tank, Number(1_000n * TRX));
  await tron.mine();
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await tron?.stop();
});

describe('sending on TRON through the node', () => {
  it('activates a never-activated address with its first TRX, at the sender’s cost, and knows a broadcast it has', async () => {
    expect(await port.nativeBalance(fresh)).toBe(0n);
    const call = { asset: 'TRX' as const, from: tank, to: fresh, amount: 40n * TRX };
    const burn = await port.burnEstimate(call);
    expect(burn).toEqual({ energy: 0n, bandwidth: 300_000n, activation: 1_100_000n });
    const before = await trx(tank);
    const signed = await port.sign(unsigned(call), tankKey);
    expect(signed.txid).toMatch(/^[0-9a-f]{64}$/);
    expect(signed.expiresAt).toBeGreaterThan(Date.now());
    expect(await port.broadcast(signed.raw)).toBe('accepted');
    expect(await port.broadcast(signed.raw)).toBe('known');
    await tron.mine();
    const receipt = await port.sentReceipt(signed.txid);
    expect(receipt).toMatchObject({ txid: signed.txid, status: 'success', feePaid: 1_100_000n });
    expect(await trx(fresh)).toBe(40n * TRX);
    expect(before - (await trx(tank))).toBe(40n * TRX + 1_100_000n);
    // Now activated: the next TRX pays bandwidth only.
    expect((await port.burnEstimate(call)).activation).toBe(0n);
  });

  it('burns a USDT transfer’s energy and bandwidth, within the sweep budget’s estimate', async () => {
    await tron.sendToken(fresh, 12_000_000n);
    await tron.mine();
    const call = { asset: 'USDT_TRON' as const, from: fresh, to: tank, amount: 12_000_000n };
    const burn = await port.burnEstimate(call);
    expect(burn.energy).toBeGreaterThan(0n);
    expect(burn.energy % 210n).toBe(0n); // energy × the chain's energy price
    const budget = tronSweepBudget(burn);
    const before = await trx(fresh);
    const signed = await port.sign(unsigned({ ...call, feeLimit: budget.feeLimit }), freshKey);
    expect(await port.broadcast(signed.raw)).toBe('accepted');
    await tron.mine();
    const receipt = await port.sentReceipt(signed.txid);
    expect(receipt?.status).toBe('success');
    // The energy is burnt in full (nothing staked); the bandwidth fits the account's 600 free bytes of the day.
    expect(receipt!.feePaid).toBe(burn.energy);
    expect(receipt!.feePaid).toBeLessThanOrEqual(budget.required);
    expect(before - (await trx(fresh))).toBe(receipt!.feePaid);
    expect(await port.tokenBalance('USDT_TRON', tank)).toBe(12_000_000n);
  });

  it('refuses, in the node’s dry run, a transfer the token contract reverts (a blocked recipient): nothing to sign', async () => {
    const blocked = await signer.deriveAddress('TRON', depositPath('TRON', 7, 2));
    const call = { asset: 'USDT_TRON' as const, from: tank, to: blocked, amount: 1_000_000n };
    expect((await port.burnEstimate(call)).energy).toBeGreaterThan(0n);
    expect((await tron.callToken('setBlocked(address,bool)', [{ type: 'address', value: blocked }, { type: 'bool', value: 'true' }])).result).toBe(true);
    await tron.mine();
    // The node's dry run and the balance come from whatever head serves each: a revert is a refusal once it holds 3 blocks on.
    const suspected = await port.burnEstimate(call).catch((err: unknown) => err);
    expect(suspected).toBeInstanceOf(ChainUnavailableError);
    expect(suspected).not.toBeInstanceOf(TransferRefused);
    await tron.mine(2);
    expect(await port.burnEstimate(call).catch((err: unknown) => err)).toBeInstanceOf(ChainUnavailableError);
    await tron.mine();
    const refused = await port.burnEstimate(call).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(TransferRefused);
    expect((refused as Error).message).toMatch(/refuses the transfer from T\w+ to T\w+ .*REVERT.*blocked/);
  });

  it('runs a call out of energy under a low fee_limit: included, failed, the limit and the bandwidth burnt, nothing moved', async () => {
    await tron.sendToken(fresh, 5_000_000n);
    await tron.mine();
    const before = await trx(fresh);
    const signed = await port.sign(unsigned({ asset: 'USDT_TRON', from: fresh, to: tank, amount: 5_000_000n, feeLimit: 1_000n }), freshKey);
    expect(await port.broadcast(signed.raw)).toBe('accepted');
    await tron.mine();
    const receipt = await port.sentReceipt(signed.txid);
    expect(receipt?.status).toBe('reverted');
    expect(before - (await trx(fresh))).toBe(receipt!.feePaid);
    expect(receipt!.feePaid).toBeGreaterThan(1_000n); // the limit and the bandwidth
    expect(receipt!.feePaid).toBeLessThan(1_000n + 500_000n);
    expect(await port.tokenBalance('USDT_TRON', fresh)).toBe(5_000_000n);
  });

  it('is refused a contract call from an account that never existed', async () => {
    const nobody = await signer.deriveAddress('TRON', depositPath('TRON', 7, 2));
    await tron.sendToken(nobody, 1_000_000n);
    await tron.mine();
    const signed = await port.sign(unsigned({ asset: 'USDT_TRON', from: nobody, to: tank, amount: 1_000_000n, feeLimit: 30n * TRX }), keyOf(depositPath('TRON', 7, 2)));
    const err = await failure<BroadcastRejected>(port.broadcast(signed.raw));
    expect(err).toBeInstanceOf(BroadcastRejected);
    expect(err.message).toMatch(/no OwnerAccount/);
  });

  it('never signs what the node built when it is not what was asked: another recipient, another amount', async () => {
    const other = await signer.deriveAddress('TRON', depositPath('TRON', 7, 3));
    const otherHex = `41${Buffer.from(tronUtils.address.toHex(other).slice(2), 'hex').toString('hex')}`;
    const cases: { path: string; change: (body: Record<string, unknown>) => Record<string, unknown>; asked: UnsignedTransfer; key: SignDigest }[] = [
      { path: '/wallet/createtransaction', change: (b) => ({ ...b, to_address: otherHex }), asked: unsigned({ asset: 'TRX', from: tank, to: fresh, amount: 1n * TRX }), key: tankKey },
      { path: '/wallet/createtransaction', change: (b) => ({ ...b, amount: 2 * (b.amount as number) }), asked: unsigned({ asset: 'TRX', from: tank, to: fresh, amount: 1n * TRX }), key: tankKey },
      {
        path: '/wallet/triggersmartcontract',
        change: (b) => ({ ...b, fee_limit: 1_000 * (b.fee_limit as number) }),
        asked: unsigned({ asset: 'USDT_TRON', from: fresh, to: tank, amount: 1n, feeLimit: 30n * TRX }),
        key: freshKey,
      },
    ];
    for (const c of cases) {
      proxy.rewrite = (path, body) => (path === c.path ? c.change(body) : body);
      const before = signs;
      const err = await failure<ChainUnavailableError>(port.sign(c.asked, c.key));
      expect(err).toBeInstanceOf(ChainUnavailableError);
      expect(err.message).toMatch(/differs from the transfer asked for: not signed/);
      expect(signs).toBe(before);
    }
    proxy.rewrite = null;
  });

  /** Signs a TRX transfer through a node whose createtransaction answer `change` rewrites (bytes, JSON and txID kept agreeing). */
  async function signThroughNode(change: (tx: { raw_data: Record<string, unknown> & { contract: unknown[] }; rawHex: string }) => string) {
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const res = await realFetch(input, init);
      if (!String(input).endsWith('/wallet/createtransaction')) return res;
      const tx = (await res.json()) as { txID: string; raw_data: Record<string, unknown> & { contract: unknown[] }; raw_data_hex: string };
      tx.raw_data_hex = change({ raw_data: tx.raw_data, rawHex: tx.raw_data_hex });
      tx.txID = createHash('sha256').update(Buffer.from(tx.raw_data_hex, 'hex')).digest('hex');
      return new Response(JSON.stringify(tx), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    try {
      return await port.sign(unsigned({ asset: 'TRX', from: tank, to: fresh, amount: 1n * TRX }), tankKey);
    } finally {
      globalThis.fetch = realFetch;
    }
  }
  const encode = (raw: Record<string, unknown>) => tronUtils.transaction.txPbToRawDataHex(tronUtils.transaction.txJsonToPb({ raw_data: raw, visible: false })).toLowerCase();

  it('treats an expired transaction as dead at the node', async () => {
    const signed = await signThroughNode((tx) => {
      tx.raw_data.expiration = Date.now() - 1_000;
      return encode(tx.raw_data);
    });
    expect(signed.expiresAt).toBeLessThan(Date.now());
    const err = await failure<BroadcastRejected>(port.broadcast(signed.raw));
    expect(err).toBeInstanceOf(BroadcastRejected);
    expect(err.reason).toBe('expired');
  });

  it('never signs two contracts in one transaction, another contract type, or an expiration far ahead', async () => {
    const RawTransaction = (globalThis as unknown as { TronWebProto: { Transaction: { raw: { deserializeBinary(b: Uint8Array): { getContractList(): unknown[]; addContract(c: unknown): void; serializeBinary(): Uint8Array } } } } })
      .TronWebProto.Transaction.raw;
    const before = signs;
    const refusals = [
      // A second contract, in the bytes and in the JSON.
      (tx: { raw_data: Record<string, unknown> & { contract: unknown[] }; rawHex: string }) => {
        const msg = RawTransaction.deserializeBinary(Buffer.from(tx.rawHex, 'hex'));
        msg.addContract(msg.getContractList()[0]);
        tx.raw_data.contract = [tx.raw_data.contract[0], tx.raw_data.contract[0]];
        return Buffer.from(msg.serializeBinary()).toString('hex');
      },
      // Expiring in an hour: the bytes could be held back that long.
      (tx: { raw_data: Record<string, unknown> & { contract: unknown[] }; rawHex: string }) => {
        tx.raw_data.expiration = Date.now() + 3_600_000;
        return encode(tx.raw_data);
      },
    ];
    for (const change of refusals) {
      const err = await failure<ChainUnavailableError>(signThroughNode(change));
      expect(err).toBeInstanceOf(ChainUnavailableError);
      expect(err.message).toMatch(/not a single contract|something else in its JSON than in its bytes|expires too late/);
    }
    expect(signs).toBe(before);
  });

  it('tells the time of the block past the finality depth', async () => {
    await rpc(tron.standin.anvil.rpcUrl, 'anvil_mine', ['0x20', '0x3']);
    const head = await port.head();
    const finalized = await port.finalizedTime();
    const block = (await (await fetch(`${tron.standin.url}/wallet/getblockbynum`, { method: 'POST', body: JSON.stringify({ num: Number(head.number - 19n) }) })).json()) as {
      block_header: { raw_data: { timestamp: number } };
    };
    expect(finalized).toBe(block.block_header.raw_data.timestamp);
  });
});
