// The EVM adapter of ChainPort on a real anvil: token and native transfers to
// monitored addresses (and only those), exact 18-decimal amounts, headers
// with parent hashes, a rescan's view of one transaction, identities that
// survive re-inclusion in another block, orphaned blocks after anvil_reorg,
// several URLs with fallback, retries on 429, a failing node reported as
// ChainUnavailableError, oversized eth_getLogs ranges split, native
// transfers read through full blocks where eth_getBlockReceipts is not served,
// and a failed chain-id lookup not kept for the next signature.
import { bytesToHex, hexToBigInt, parseTransaction } from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvmChainPort } from '../../src/adapters/chains/evm-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { ChainUnavailableError, type ChainPort } from '../../src/domain/chains/chain-port.js';
import { freePort } from '../support/free-port.js';
import { OUTSIDE, startTestChain, type TestChain } from '../support/anvil-chain.js';
import { startRpcProxy, type RpcProxy } from '../support/rpc-proxy.js';

const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';
const NOT_OURS = '0x3333333333333333333333333333333333333333';
const monitored = new Set([A, B]);
const isMonitored = (k: string) => monitored.has(k);

let chain: TestChain;
let proxy: RpcProxy;
let port: ChainPort;

beforeAll(async () => {
  chain = await startTestChain({ chainId: 97, decimals: [18] });
  proxy = await startRpcProxy(chain.anvil.rpcUrl);
  port = new EvmChainPort({ network: 'BSC_TESTNET', urls: [proxy.url], contracts: { USDT_BSC: chain.tokens[0]! }, retryDelayMs: 20 });
});
afterAll(async () => {
  await proxy?.close();
  await chain?.stop();
});

describe('EvmChainPort', () => {
  it('finds token and native transfers to monitored addresses only, with exact amounts and block refs', async () => {
    const from = (await chain.blockNumber()) + 1n;
    const t1 = await chain.sendToken(chain.tokens[0]!, A, 25_123_456_789_012_345_678n);
    await chain.sendToken(chain.tokens[0]!, NOT_OURS, 1n);
    await chain.mine();
    const n1 = await chain.sendNative(B, 10n ** 17n);
    await chain.sendNative(NOT_OURS, 5n);
    await chain.mine();
    const to = await chain.blockNumber();
    const found = await port.transfers(from, to, isMonitored);
    expect(found.map((t) => ({ asset: t.asset, txid: t.txid, to: t.to, amount: t.amount, from: t.from, logIndex: t.logIndex }))).toEqual([
      { asset: 'USDT_BSC', txid: t1, to: A, amount: 25_123_456_789_012_345_678n, from: OUTSIDE, logIndex: 0 },
      { asset: 'BNB', txid: n1, to: B, amount: 10n ** 17n, from: OUTSIDE, logIndex: null },
    ]);
    // Read through the blocks' receipts; a URL that does not serve them is read through its full blocks, to the same answer.
    expect(proxy.calls.get('eth_getBlockReceipts')).toBeGreaterThan(0);
    const refusing = await startRpcProxy(chain.anvil.rpcUrl);
    refusing.refuseMethods.add('eth_getBlockReceipts');
    try {
      const other = new EvmChainPort({ network: 'BSC_TESTNET', urls: [refusing.url], contracts: { USDT_BSC: chain.tokens[0]! }, retryDelayMs: 20 });
      expect(await other.transfers(from, to, isMonitored)).toEqual(found);
      const refused = refusing.calls.get('eth_getBlockReceipts');
      expect(refused).toBeGreaterThan(0);
      expect(await other.transfers(from, to, isMonitored)).toEqual(found);
      expect(refusing.calls.get('eth_getBlockReceipts')).toBe(refused); // refused once, never asked again
    } finally {
      await refusing.close();
    }
    const blocks = await port.blocks(from, to);
    expect(blocks.map((b) => b.number)).toEqual([from, to]);
    expect(blocks[1]!.parentHash).toBe(blocks[0]!.hash);
    expect(found[0]!.block).toEqual(blocks[0]);
    expect(await port.transfersOf(t1, isMonitored)).toEqual([found[0]]);
    expect(await port.receipt(n1)).toEqual({ txid: n1, status: 'success', block: blocks[1] });
    expect(await port.receipt(`0x${'ab'.repeat(32)}`)).toBeNull();
  });

  it('forgets an orphaned block and its transfer after anvil_reorg', async () => {
    const tx = await chain.sendToken(chain.tokens[0]!, A, 7n);
    await chain.mine();
    const [before] = await port.transfersOf(tx, isMonitored);
    const orphan = before!.block;
    await rpc(chain.anvil.rpcUrl, 'anvil_reorg', [1, []]);
    expect(await port.blockByHash(orphan.hash)).toBeNull();
    expect((await port.blockByNumber(orphan.number))!.hash).not.toBe(orphan.hash);
    expect(await port.transfersOf(tx, isMonitored)).toEqual([]);
  });

  it('falls back to the next URL when the first is dead, and retries a 429', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const both = new EvmChainPort({ network: 'BSC_TESTNET', urls: [dead, proxy.url], contracts: {}, retryDelayMs: 10, retryCount: 1 });
    expect((await both.head()).number).toBe(await chain.blockNumber());
    proxy.failNext(2, '429');
    expect((await port.head()).number).toBe(await chain.blockNumber());
  });

  it('reports a node that keeps failing as ChainUnavailableError, in bounded time', async () => {
    proxy.mode = '500';
    const started = Date.now();
    const err = await port.head().catch((e: unknown) => e);
    proxy.mode = 'pass';
    expect(err).toBeInstanceOf(ChainUnavailableError);
    expect((err as ChainUnavailableError).kind).toBe('server_error');
    expect(Date.now() - started).toBeLessThan(10_000);
    proxy.mode = 'down';
    const down = await port.head().catch((e: unknown) => e);
    proxy.mode = 'pass';
    expect((down as ChainUnavailableError).kind).toBe('unreachable');
  });

  it('splits an eth_getLogs range the node refuses as too large, and finds every transfer', async () => {
    const from = (await chain.blockNumber()) + 1n;
    const sent: string[] = [];
    for (let i = 0; i < 12; i++) {
      sent.push(await chain.sendToken(chain.tokens[0]!, i % 2 ? A : B, BigInt(i + 1)));
      await chain.mine(3);
    }
    const to = await chain.blockNumber();
    proxy.maxLogRange = 10;
    proxy.calls.clear();
    const wide = new EvmChainPort({ network: 'BSC_TESTNET', urls: [proxy.url], contracts: { USDT_BSC: chain.tokens[0]! }, maxLogRange: 1000 });
    const found = await wide.transfers(from, to, isMonitored);
    proxy.maxLogRange = null;
    expect(found.map((t) => t.txid)).toEqual(sent);
    expect(proxy.calls.get('eth_getLogs')).toBeGreaterThanOrEqual(4); // ~37 blocks in ranges of at most 10
  });

  it('signs for the chain id of the node after a failed eth_chainId lookup (the failure is not kept)', async () => {
    const key = generatePrivateKey();
    const from = privateKeyToAccount(key).address;
    const signer = async (digest: Uint8Array) => {
      const sig = await sign({ hash: bytesToHex(digest), privateKey: key });
      return { r: hexToBigInt(sig.r), s: hexToBigInt(sig.s), recovery: sig.yParity as 0 | 1 };
    };
    const tx = { asset: 'BNB' as const, from, to: A, amount: 1n, nonce: 0n, gasLimit: 21_000n, fees: { maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }, feeLimit: null };
    const fresh = new EvmChainPort({ network: 'BSC_TESTNET', urls: [proxy.url], contracts: {}, retryDelayMs: 10, retryCount: 1 });
    proxy.failMethods.add('eth_chainId');
    const failed = await fresh.sign(tx, signer).catch((e: unknown) => e);
    proxy.failMethods.clear();
    expect(failed).toBeInstanceOf(ChainUnavailableError);
    const signed = await fresh.sign(tx, signer);
    expect(parseTransaction(signed.raw as `0x${string}`).chainId).toBe(97);
  });
});
