// The TRON side on the sandbox's stand-in: the stand-in refuses what a TRON
// node refuses (a forged signature, a JSON that says something else than its
// raw_data, a wrong txID, an expired or foreign transaction, a replay, even
// concurrent, two contracts in one transaction) and runs nothing of it; the TronChainPort reads blocks, TRC-20 deposits to
// monitored addresses only, receipts, and sees a rollback; node failures are
// retried and fall back to the next URL.
import { sign, serializeSignature } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronChainPort } from '../../src/adapters/chains/tron-chain.js';
import { ChainUnavailableError } from '../../src/domain/chains/chain-port.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';
import { TRON_OUTSIDE_KEY, startTestTron, type TestTron } from '../support/tron-chain.js';

let tron: TestTron;
let proxy: RpcProxy;
let port: TronChainPort;
const DEPOSIT = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
const OTHER = 'TDCHX8TBzCq92SwSZiZXokst7SbRZfE6Us';
const monitored = new Set([DEPOSIT]);
const isMonitored = (k: string) => monitored.has(k);

const post = async <T = Record<string, unknown>>(path: string, body: unknown): Promise<T> =>
  (await (await fetch(`${tron.standin.url}/${path}`, { method: 'POST', body: JSON.stringify(body) })).json()) as T;

const balanceOf = async (who: string) => {
  const res = await tron.tronWeb.transactionBuilder.triggerConstantContract(tron.token, 'balanceOf(address)', {}, [{ type: 'address', value: who }], tron.outside);
  return BigInt(`0x${res.constant_result![0]}`);
};

/** A transfer of `amount` USDT to `to`, built by the node and signed by the outside account, not broadcast. */
async function signedTransfer(to: string, amount: bigint) {
  const built = await tron.tronWeb.transactionBuilder.triggerSmartContract(
    tron.token,
    'transfer(address,uint256)',
    { feeLimit: 100_000_000 },
    [
      { type: 'address', value: to },
      { type: 'uint256', value: amount.toString() },
    ],
    tron.outside,
  );
  return JSON.parse(JSON.stringify(await tron.tronWeb.trx.sign(built.transaction))) as {
    txID: string;
    raw_data: Record<string, unknown> & { contract: { parameter: { value: Record<string, unknown> } }[] };
    raw_data_hex: string;
    signature: string[];
  };
}

beforeAll(async () => {
  tron = await startTestTron();
  proxy = await startRpcProxy(tron.standin.url);
  port = new TronChainPort({ network: 'TRON_TESTNET', urls: [proxy.url], contracts: { USDT_TRON: tron.token }, retryDelayMs: 10, retryCount: 2, timeoutMs: 2000 });
  // The outside account holds 1,000 USDT for the refusal tests.
  await tron.callToken('mint(address,uint256)', [
    { type: 'address', value: tron.outside },
    { type: 'uint256', value: '1000000000' },
  ]);
  await tron.mine();
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await tron?.stop();
});

describe('the TRON stand-in checks a broadcast as a TRON node does', () => {
  it('refuses a signature by another key than the owner, and runs nothing', async () => {
    const tx = await signedTransfer(DEPOSIT, 5_000_000n);
    const forged = serializeSignature(await sign({ hash: `0x${tx.txID}`, privateKey: `0x${'11'.repeat(32)}` })).slice(2);
    const res = await post<{ result: boolean; code: string; message: string }>('wallet/broadcasttransaction', { ...tx, signature: [forged] });
    expect(res).toMatchObject({ result: false, code: 'SIGERROR' });
    expect(Buffer.from(res.message, 'hex').toString()).toMatch(/signed by 41[0-9a-f]{40}, not by its owner/);
    await tron.mine();
    expect(await balanceOf(DEPOSIT)).toBe(0n);
  });

  it('refuses a JSON that differs from raw_data_hex (the recipient changed in the JSON only)', async () => {
    const tx = await signedTransfer(OTHER, 5_000_000n);
    const swapped = structuredClone(tx);
    swapped.raw_data.contract[0]!.parameter.value.data = String(tx.raw_data.contract[0]!.parameter.value.data).replace(/0{24}[0-9a-f]{40}/, `${'0'.repeat(24)}${'ab'.repeat(20)}`);
    const res = await post('wallet/broadcasttransaction', swapped);
    expect(res).toMatchObject({ result: false, code: 'OTHER_ERROR' });
    expect(Buffer.from(String(res.message), 'hex').toString()).toBe('raw_data does not match raw_data_hex');
  });

  it('refuses a txID that is not the sha256 of raw_data, an expired transaction, a foreign reference block and a replay', async () => {
    const tx = await signedTransfer(OTHER, 1_000_000n);
    expect(await post('wallet/broadcasttransaction', { ...tx, txID: 'ab'.repeat(32) })).toMatchObject({ result: false, code: 'SIGERROR' });
    // Signed correctly but expired / referencing a block this chain never had: built here, signed with the owner's key.
    const { utils } = await import('tronweb');
    const resign = async (raw: Record<string, unknown>) => {
      const pb = utils.transaction.txJsonToPb({ raw_data: raw, visible: false });
      const raw_data_hex = utils.transaction.txPbToRawDataHex(pb).toLowerCase();
      const txID = utils.transaction.txPbToTxID(pb).replace(/^0x/, '');
      const signature = serializeSignature(await sign({ hash: `0x${txID}`, privateKey: `0x${TRON_OUTSIDE_KEY}` })).slice(2);
      return { txID, raw_data: raw, raw_data_hex, signature: [signature], visible: false };
    };
    const expired = await resign({ ...tx.raw_data, expiration: Date.now() - 1000 });
    expect(await post('wallet/broadcasttransaction', expired)).toMatchObject({ result: false, code: 'TRANSACTION_EXPIRATION_ERROR' });
    const foreign = await resign({ ...tx.raw_data, ref_block_hash: '0123456789abcdef' });
    expect(await post('wallet/broadcasttransaction', foreign)).toMatchObject({ result: false, code: 'TAPOS_ERROR' });
    expect(await post('wallet/broadcasttransaction', tx)).toEqual({ result: true, txid: tx.txID });
    expect(await post('wallet/broadcasttransaction', tx)).toMatchObject({ result: false, code: 'DUP_TRANSACTION_ERROR' });
    await tron.mine();
    expect(await balanceOf(OTHER)).toBe(1_000_000n); // once
  });

  it('runs a transaction broadcast many times at once exactly once', async () => {
    const before = await balanceOf(OTHER);
    const tx = await signedTransfer(OTHER, 2_000_000n);
    const answers = await Promise.all(Array.from({ length: 16 }, () => post<{ result: boolean; code?: string }>('wallet/broadcasttransaction', tx)));
    expect(answers.filter((a) => a.result === true)).toHaveLength(1);
    expect(answers.filter((a) => a.code === 'DUP_TRANSACTION_ERROR')).toHaveLength(15);
    await tron.mine();
    expect((await balanceOf(OTHER)) - before).toBe(2_000_000n);
  });

  it('refuses a transaction of two contracts, as java-tron does', async () => {
    const tx = await signedTransfer(OTHER, 1_000_000n);
    const { utils } = await import('tronweb');
    const raw = { ...tx.raw_data, contract: [tx.raw_data.contract[0], tx.raw_data.contract[0]] };
    const pb = utils.transaction.txJsonToPb({ raw_data: raw, visible: false });
    const txID = utils.transaction.txPbToTxID(pb).replace(/^0x/, '');
    const signature = serializeSignature(await sign({ hash: `0x${txID}`, privateKey: `0x${TRON_OUTSIDE_KEY}` })).slice(2);
    const res = await post('wallet/broadcasttransaction', { txID, raw_data: raw, raw_data_hex: utils.transaction.txPbToRawDataHex(pb), signature: [signature] });
    expect(res).toMatchObject({ result: false, code: 'CONTRACT_VALIDATE_ERROR' });
  });

  it('shows a balance beyond 2^53 sun exactly, as a JSON integer', async () => {
    const { rpc } = await import('../../src/adapters/sandbox/anvil.js');
    const whale = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
    const hex = tron.tronWeb.address.toHex(whale);
    await rpc(tron.standin.anvil.rpcUrl, 'anvil_setBalance', [`0x${hex.slice(2)}`, `0x${(2n ** 60n + 1n).toString(16)}`]);
    const text = await (await fetch(`${tron.standin.url}/wallet/getaccount`, { method: 'POST', body: JSON.stringify({ address: hex }) })).text();
    expect(text).toBe(`{"address":"${hex.toLowerCase()}","balance":${2n ** 60n + 1n}}`);
  });

  it('moves TRX with a TransferContract signed by tronweb, and shows the balance', async () => {
    const before = await tron.tronWeb.trx.getBalance(OTHER);
    const built = await tron.tronWeb.transactionBuilder.sendTrx(OTHER, 2_500_000, tron.outside);
    const sent = await tron.tronWeb.trx.sendRawTransaction(await tron.tronWeb.trx.sign(built));
    expect(sent.result).toBe(true);
    await tron.mine();
    expect((await tron.tronWeb.trx.getBalance(OTHER)) - before).toBe(2_500_000);
  });
});

describe('TronChainPort', () => {
  it('reads blocks: head, by number, by id, ranges, each linked to its parent', async () => {
    await tron.mine(3);
    const head = await port.head();
    const blocks = await port.blocks(head.number - 3n, head.number);
    expect(blocks.map((b) => b.number)).toEqual([head.number - 3n, head.number - 2n, head.number - 1n, head.number]);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]!.parentHash).toBe(blocks[i - 1]!.hash);
    expect(blocks[3]).toEqual(head);
    expect(await port.blockByNumber(head.number)).toEqual(head);
    expect(await port.blockByHash(head.hash)).toEqual(head);
    expect(await port.blockByNumber(head.number + 100n)).toBeNull();
    await expect(port.blocks(head.number, head.number + 1n)).rejects.toThrow(/does not have block/);
  });

  it('reports USDT transfers to monitored addresses only, with the logs ordinal, and no reverted or foreign-token transfer', async () => {
    const from = (await port.head()).number + 1n;
    const other = await tron.otherToken();
    const ok = await tron.sendToken(DEPOSIT, 25_000_000n);
    await tron.sendToken(OTHER, 7_000_000n); // not monitored
    await tron.sendToken(DEPOSIT, 9_000_000n, other); // a token the adapter does not know
    // More than the outside account holds: the transaction is in the block, reverted.
    const reverted = await tron.callToken('transfer(address,uint256)', [
      { type: 'address', value: DEPOSIT },
      { type: 'uint256', value: (10n ** 15n).toString() },
    ]);
    expect(reverted.result).toBe(true);
    await tron.mine();
    const to = (await port.head()).number;
    const found = await port.transfers(from, to, isMonitored);
    expect(found).toEqual([
      {
        network: 'TRON_TESTNET',
        asset: 'USDT_TRON',
        txid: ok,
        logIndex: 0,
        block: expect.objectContaining({ number: to }),
        from: tron.outside,
        to: DEPOSIT,
        amount: 25_000_000n,
      },
    ]);
    expect(await port.transfersOf(ok, isMonitored)).toEqual(found);
    expect(await port.receipt(ok)).toEqual({ txid: ok, status: 'success', block: found[0]!.block });
    expect(await port.receipt(reverted.txid)).toMatchObject({ txid: reverted.txid, status: 'reverted' });
    expect(await port.transfersOf(reverted.txid, isMonitored)).toEqual([]);
    expect(await port.receipt('ab'.repeat(32))).toBeNull();
  });

  it('sees a rollback: the block is gone, its transfer and receipt with it', async () => {
    const txid = await tron.sendToken(DEPOSIT, 3_000_000n);
    await tron.mine();
    const block = (await port.receipt(txid))!.block;
    expect(await port.transfers(block.number, block.number, isMonitored)).toHaveLength(1);
    await tron.standin.rollback(1);
    expect(await port.blockByHash(block.hash)).toBeNull();
    const replaced = await port.blockByNumber(block.number);
    expect(replaced!.hash).not.toBe(block.hash);
    expect(replaced!.parentHash).toBe(block.parentHash);
    expect(await port.transfers(block.number, block.number, isMonitored)).toEqual([]);
    expect(await port.receipt(txid)).toBeNull();
  });

  it('retries a failing node, falls back to the next URL, and names what kept failing', async () => {
    proxy.failNext(2, '500');
    expect((await port.head()).number).toBeGreaterThan(0n);
    proxy.mode = '429';
    await expect(port.head()).rejects.toMatchObject({ kind: 'rate_limited' });
    proxy.mode = 'down';
    const err = await port.head().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainUnavailableError);
    expect(err).toMatchObject({ kind: 'unreachable', network: 'TRON_TESTNET' });
    const twoNodes = new TronChainPort({ network: 'TRON_TESTNET', urls: [proxy.url, tron.standin.url], contracts: { USDT_TRON: tron.token }, retryDelayMs: 10, retryCount: 1 });
    expect((await twoNodes.head()).number).toBeGreaterThan(0n);
    proxy.mode = 'pass';
  });
});
