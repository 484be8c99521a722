// One configured node URL that lies (issue 30's second outside review): a log
// it makes up is never a deposit, its forged receipt never confirms a payout
// nor takes a refund back, and its forged success never holds payouts. The
// hostile node here is a JSON-RPC proxy of the test's own making in front of a
// real anvil, rewriting the answers it relays; the honest URL is anvil itself.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvmChainPort, TRANSFER_TOPIC } from '../../src/adapters/chains/evm-chain.js';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { agreedKey, ChainUnavailableError } from '../../src/domain/chains/chain-port.js';
import { OUTSIDE, startTestChain, type TestChain } from '../support/anvil-chain.js';

const A = getAddress('0x1111111111111111111111111111111111111111');
const isMonitored = (k: string) => k === A.toLowerCase();
const FAKE_TX = `0x${'fa'.repeat(32)}`;
const word = (hex: string) => `0x${hex.replace(/^0x/, '').toLowerCase().padStart(64, '0')}`;

type Mode = 'honest' | 'fake-log' | 'forge-success' | 'forge-amount' | 'forge-contract' | 'hide' | 'keep-orphans';
let mode: Mode = 'honest';
/** Receipts of blocks anvil reorged away, by block hash (what a geth node still serves). */
const orphans = new Map<string, unknown>();
let chain: TestChain;
let hostile: Server;
let hostileUrl: string;

interface RpcCall { id: number; method: string; params: unknown[] }
interface RpcReply { id: number; result?: unknown }

/** Relays to anvil, then rewrites the answer as the current mode says. */
async function lie(call: RpcCall, reply: RpcReply): Promise<RpcReply> {
  if (mode === 'fake-log' && call.method === 'eth_getLogs' && Array.isArray(reply.result)) {
    const filter = call.params[0] as { toBlock?: string; blockHash?: string };
    const block = filter.blockHash
      ? await rpc<{ number: string; hash: string }>(chain.anvil.rpcUrl, 'eth_getBlockByHash', [filter.blockHash, false])
      : await rpc<{ number: string; hash: string }>(chain.anvil.rpcUrl, 'eth_getBlockByNumber', [filter.toBlock, false]);
    const log = { address: chain.tokens[0]!.toLowerCase(), topics: [TRANSFER_TOPIC, word(OUTSIDE), word(A)], data: word((777n * 10n ** 6n).toString(16)), blockNumber: block.number, blockHash: block.hash, transactionHash: FAKE_TX, logIndex: '0x0', transactionIndex: '0x0', removed: false };
    return { ...reply, result: [...(reply.result as unknown[]), log] };
  }
  // Like geth, a block it reorged away is still served by its hash (EIP-1898 requireCanonical defaults to false).
  if (mode === 'keep-orphans' && call.method === 'eth_getBlockReceipts' && orphans.has(String(call.params[0]))) {
    return { ...reply, result: orphans.get(String(call.params[0])) };
  }
  if (call.method === 'eth_getTransactionReceipt' && reply.result) return { ...reply, result: forged(reply.result as Receipt) };
  // The same lies in a block's receipts (hiding: the block's receipts without it).
  if (call.method === 'eth_getBlockReceipts' && Array.isArray(reply.result)) {
    return { ...reply, result: (reply.result as Receipt[]).map(forged).filter((r) => r !== null) };
  }
  return reply;
}

type Receipt = { status: string; logs: { data: string }[] };
function forged(r: Receipt): Receipt | null {
  if (mode === 'forge-success') return { ...r, status: '0x1' };
  if (mode === 'hide') return null;
  if (mode === 'forge-contract') return { ...r, logs: r.logs.map((l) => ({ ...l, address: `0x${'ee'.repeat(20)}` })) };
  if (mode === 'forge-amount') return { ...r, logs: r.logs.map((l) => ({ ...l, data: word((10n ** 12n).toString(16)) })) };
  return r;
}

beforeAll(async () => {
  chain = await startTestChain({ chainId: 11155111, decimals: [6] });
  hostile = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      void (async () => {
        const parsed = JSON.parse(body) as RpcCall | RpcCall[];
        const calls = Array.isArray(parsed) ? parsed : [parsed];
        const upstream = await fetch(chain.anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(calls) });
        const replies = (await upstream.json()) as RpcReply[];
        const out = await Promise.all(replies.map((r) => lie(calls.find((c) => c.id === r.id)!, r)));
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(Array.isArray(parsed) ? out : out[0]));
      })();
    });
  });
  await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((r) => hostile?.close(r));
  await chain?.stop();
});

const port = (urls: string[]) => new EvmChainPort({ network: 'ETH_TESTNET', urls, contracts: { USDT_ETH: chain.tokens[0]! }, chainId: 11155111, retryDelayMs: 1, retryCount: 0, timeoutMs: 5000 });

describe('a node URL that lies', () => {
  it('a log its block does not hold (a transaction not in the block, or one its bloom rules out) is a node error, never a deposit', async () => {
    await chain.sendToken(chain.tokens[0]!, A, 5_000_000n);
    await chain.mine();
    const head = BigInt(await rpc<string>(chain.anvil.rpcUrl, 'eth_blockNumber', []));
    const honest = await port([chain.anvil.rpcUrl]).transfers(head, head, isMonitored);
    expect(honest.map((t) => t.amount)).toEqual([5_000_000n]);
    mode = 'fake-log';
    try {
      const err = await port([hostileUrl]).transfers(0n, head, isMonitored).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ChainUnavailableError);
      expect((err as Error).message).toMatch(/does not hold/);
    } finally {
      mode = 'honest';
    }
  });

  it('a deposit is settled only on the transfer every URL shows: a forged amount or a made-up log is never agreed', async () => {
    const txid = await chain.sendToken(chain.tokens[0]!, A, 7_000_000n);
    await chain.mine();
    const both = port([hostileUrl, chain.anvil.rpcUrl]);
    const [real] = await port([chain.anvil.rpcUrl]).transfersOf(txid, isMonitored);
    const key = agreedKey({ ...real!, blockHash: real!.block.hash });
    // Asked by transaction, or by the block the scanner read it in (the URLs' block receipts): the same verdicts.
    const blockOf = new Map([[txid, { number: real!.block.number, hash: real!.block.hash }]]);
    for (const hint of [undefined, blockOf]) {
      expect([...(await both.agreedTransfers([txid], isMonitored, hint))]).toEqual([key]);
      mode = 'forge-amount';
      try {
        expect([...(await both.agreedTransfers([txid], isMonitored, hint))]).toEqual([]);
      } finally {
        mode = 'honest';
      }
      // Another token contract at the same position (an asset swap): not the same transfer.
      mode = 'forge-contract';
      try {
        expect([...(await both.agreedTransfers([txid], isMonitored, hint))]).toEqual([]);
      } finally {
        mode = 'honest';
      }
      // A URL whose block (by that hash) lacks the transaction is asked for its receipt: hiding it is no agreement either way.
      mode = 'hide';
      try {
        expect([...(await both.agreedTransfers([txid], isMonitored, hint))]).toEqual([]);
      } finally {
        mode = 'honest';
      }
    }
    // A transaction no honest URL has: nothing to agree on.
    expect([...(await both.agreedTransfers([FAKE_TX], isMonitored))]).toEqual([]);
    // One URL hiding a mined transaction (its fork, or a backend behind) proves nothing gone.
    mode = 'hide';
    try {
      expect(await port([hostileUrl]).minedOnAnyNode(txid)).toBe(false);
      expect(await both.minedOnAnyNode(txid)).toBe(true);
      expect(await port([hostileUrl, 'http://127.0.0.1:9']).minedOnAnyNode(txid).catch((e: unknown) => e)).toBeInstanceOf(ChainUnavailableError);
    } finally {
      mode = 'honest';
    }
  });

  it('a block a URL reorged away proves nothing, even where the URL still serves its receipts by hash', async () => {
    const txid = await chain.sendToken(chain.tokens[0]!, A, 9_000_000n);
    await chain.mine();
    const [real] = await port([chain.anvil.rpcUrl]).transfersOf(txid, isMonitored);
    const orphan = real!.block;
    orphans.set(orphan.hash, await rpc(chain.anvil.rpcUrl, 'eth_getBlockReceipts', [orphan.hash]));
    const blockOf = new Map([[txid, { number: orphan.number, hash: orphan.hash }]]);
    expect([...(await port([hostileUrl]).agreedTransfers([txid], isMonitored, blockOf))]).toEqual([agreedKey({ ...real!, blockHash: orphan.hash })]);
    await rpc(chain.anvil.rpcUrl, 'anvil_reorg', [1, []]); // the transaction is gone from the chain
    mode = 'keep-orphans';
    try {
      expect([...(await port([hostileUrl]).agreedTransfers([txid], isMonitored, blockOf))]).toEqual([]);
      expect([...(await port([hostileUrl]).agreedTransfers([txid], isMonitored))]).toEqual([]);
    } finally {
      mode = 'honest';
    }
  });

  it('a forged success receipt of a reverted payout confirms nothing and takes nothing back: the URLs must agree', async () => {
    // A transfer the token refuses (a blocked recipient) reverts on chain.
    const blocked = getAddress(`0x${'4'.repeat(40)}`);
    await chain.sendToken(chain.tokens[0]!, OUTSIDE, 1_000_000n);
    await chain.setBlocked(chain.tokens[0]!, blocked, true);
    await chain.mine();
    await rpc(chain.anvil.rpcUrl, 'anvil_impersonateAccount', [OUTSIDE]);
    const txid = await rpc<string>(chain.anvil.rpcUrl, 'eth_sendTransaction', [
      { from: OUTSIDE, to: chain.tokens[0], data: `0xa9059cbb${word(blocked).slice(2)}${word('f4240').slice(2)}`, gas: '0x30000' },
    ]);
    await chain.mine(3);
    const both = port([hostileUrl, chain.anvil.rpcUrl]);
    expect((await both.agreedReceipt(txid))?.status).toBe('reverted');
    mode = 'forge-success';
    try {
      expect(await port([hostileUrl]).sentReceipt(txid)).toMatchObject({ status: 'success' }); // what one read would believe
      expect(await both.agreedReceipt(txid)).toBeNull();
      expect(await both.revertedOnEveryNode(txid)).toBe(false);
    } finally {
      mode = 'honest';
    }
  });
});
