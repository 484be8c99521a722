// The provider imitation in front of a real anvil and the TRON stand-in: each
// behaviour row answers as the provider it copies does (status, code and
// words), and the pool's lagging and sibling backends answer as a node at
// their height would, while the upstream still has what they hide.
import { keccak256, type Hex } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { BEHAVIOURS, parseImitationOption, startProviderImitation, type ProviderImitation, type ProviderImitationOptions } from '../../src/adapters/sandbox/provider-imitation.js';
import { OUTSIDE, startTestChain, type TestChain } from '../support/anvil-chain.js';
import { startTestTron, type TestTron } from '../support/tron-chain.js';

const RECIPIENT = '0x000000000000000000000000000000000000bEEF';
const DEPOSIT = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
const hex = (n: bigint) => `0x${n.toString(16)}`;

const running: ProviderImitation[] = [];
const imitate = async (opts: ProviderImitationOptions) => {
  const p = await startProviderImitation(opts);
  running.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.close()));
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: { result?: unknown; error?: { code: number; message: string; data?: unknown } } & Record<string, unknown>;
}
const post = async (url: string, body: unknown): Promise<Answer> => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: Answer['json'] = {};
  try {
    json = JSON.parse(text) as Answer['json'];
  } catch {
    /* a plain answer */
  }
  return { status: res.status, headers: res.headers, text, json };
};
const call = (url: string, method: string, params: unknown[] = []) => post(url, { jsonrpc: '2.0', id: 1, method, params });
const result = async <T>(url: string, method: string, params: unknown[] = []) => (await call(url, method, params)).json.result as T;

describe('EVM', () => {
  let chain: TestChain;
  let node: string;
  let token: Hex;
  /** A block with a token transfer, three empty blocks, then the head H with another transfer. */
  let A: bigint;
  let H: bigint;
  let headTransfer: Hex;

  beforeAll(async () => {
    chain = await startTestChain({ chainId: 31337, decimals: [6] });
    node = chain.anvil.rpcUrl;
    token = chain.tokens[0]!;
    await chain.sendToken(token, RECIPIENT, 5n);
    await chain.mine();
    A = await chain.blockNumber();
    await chain.mine(3);
    headTransfer = await chain.sendToken(token, RECIPIENT, 7n);
    await chain.mine();
    H = await chain.blockNumber();
  });
  afterAll(async () => {
    await chain?.stop();
  });

  describe('lagging-backend', () => {
    it('hides the head block: its logs are [], its receipts null, its blockHash an unknown block, while the upstream has them', async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['lagging-backend'], share: 1 });
      const filter = { address: token, fromBlock: hex(H), toBlock: hex(H) };
      expect(await result<unknown[]>(node, 'eth_getLogs', [filter])).toHaveLength(2);
      expect(await result(p.url, 'eth_getLogs', [filter])).toEqual([]);

      expect(await result(node, 'eth_getTransactionReceipt', [headTransfer])).not.toBeNull();
      expect(await result(p.url, 'eth_getTransactionReceipt', [headTransfer])).toBeNull();
      expect(await result(p.url, 'eth_getTransactionByHash', [headTransfer])).toBeNull();

      const head = await result<{ hash: Hex }>(node, 'eth_getBlockByNumber', [hex(H), false]);
      expect((await call(p.url, 'eth_getLogs', [{ blockHash: head.hash }])).json.error).toEqual({ code: -32000, message: 'unknown block' });
      expect(await result(p.url, 'eth_getBlockByHash', [head.hash, false])).toBeNull();
      expect(await result(p.url, 'eth_getBlockByNumber', [hex(H), false])).toBeNull();
    });

    it('reports a head 1 to 3 blocks behind and clamps a range to it (the earlier logs come back, the head block\'s do not)', async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['lagging-backend'], share: 1, seed: 7 });
      const seen = new Set<bigint>();
      for (let i = 0; i < 12; i++) {
        const L = BigInt(await result<Hex>(p.url, 'eth_blockNumber'));
        seen.add(H - L);
        const latest = await result<{ number: Hex }>(p.url, 'eth_getBlockByNumber', ['latest', false]);
        expect(BigInt(latest.number)).toBeLessThan(H);
      }
      expect([...seen].every((k) => k >= 1n && k <= 3n)).toBe(true);
      expect(seen.size).toBeGreaterThan(1);
      const logs = await result<{ blockNumber: Hex }[]>(p.url, 'eth_getLogs', [{ address: token, fromBlock: hex(A), toBlock: 'latest' }]);
      expect(logs.map((l) => BigInt(l.blockNumber))).toEqual([A, A]);
      expect(await result<unknown[]>(node, 'eth_getLogs', [{ address: token, fromBlock: hex(A), toBlock: 'latest' }])).toHaveLength(4);
    });

    it('reads state at its own head: the nonce before the head block, and "header not found" for a block it lacks', async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['lagging-backend'], share: 1 });
      const upstream = BigInt(await result<Hex>(node, 'eth_getTransactionCount', [OUTSIDE, 'latest']));
      const before = BigInt(await result<Hex>(node, 'eth_getTransactionCount', [OUTSIDE, hex(H - 1n)]));
      expect(BigInt(await result<Hex>(p.url, 'eth_getTransactionCount', [OUTSIDE, 'latest']))).toBe(before);
      expect(BigInt(await result<Hex>(p.url, 'eth_getTransactionCount', [OUTSIDE, 'pending']))).toBeLessThan(upstream);
      expect((await call(p.url, 'eth_getBalance', [OUTSIDE, hex(H)])).json.error).toEqual({ code: -32000, message: 'header not found' });
      expect(await result(p.url, 'eth_chainId')).toBe(await result(node, 'eth_chainId'));
    });

    it('serves a batch from one backend: every request in it sees the same head', async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['lagging-backend'], share: 1, seed: 3 });
      for (let i = 0; i < 5; i++) {
        const res = await post(p.url, [
          { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
          { jsonrpc: '2.0', id: 2, method: 'eth_getBlockByNumber', params: ['latest', false] },
        ]);
        const [a, b] = res.json as unknown as { id: number; result: { number?: Hex } & string }[];
        expect(a!.id).toBe(1);
        expect(b!.result.number).toBe(a!.result);
      }
      expect(p.calls.get('eth_blockNumber')).toBe(5);
      expect(p.answeredBy.get('lagging-backend')).toBe(5);
    });

    it('takes a share of the requests, and the same seed repeats the same run', async () => {
      const run = async () => {
        const p = await imitate({ kind: 'evm', target: node, behaviours: ['lagging-backend'], share: 0.5, seed: 42 });
        const heads: bigint[] = [];
        for (let i = 0; i < 30; i++) heads.push(BigInt(await result<Hex>(p.url, 'eth_blockNumber')));
        return { heads, by: p.answeredBy };
      };
      const first = await run();
      const second = await run();
      expect(second.heads).toEqual(first.heads);
      expect(first.by.get('upstream')).toBeGreaterThan(5);
      expect(first.by.get('lagging-backend')).toBeGreaterThan(5);
      expect(first.heads.filter((h) => h === H).length).toBe(first.by.get('upstream'));
    });
  });

  describe('sibling-fork', () => {
    it('shows an empty sibling of the head: same number and parent, another hash, no transactions, receipts or logs', async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['sibling-fork'], share: 1 });
      const real = await result<Record<string, Hex>>(node, 'eth_getBlockByNumber', [hex(H), false]);
      expect(BigInt(await result<Hex>(p.url, 'eth_blockNumber'))).toBe(H);
      const tip = await result<Record<string, unknown>>(p.url, 'eth_getBlockByNumber', ['latest', true]);
      expect(tip).toMatchObject({ number: hex(H), parentHash: real.parentHash, hash: keccak256(real.hash!), transactions: [] });
      expect(tip.logsBloom).toBe(`0x${'00'.repeat(256)}`);
      expect(tip.transactionsRoot).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
      expect(real.logsBloom).not.toBe(tip.logsBloom);
      expect(await result(p.url, 'eth_getBlockByHash', [tip.hash, false])).toMatchObject({ hash: tip.hash, number: hex(H) });
      expect(await result(p.url, 'eth_getBlockByHash', [real.hash, false])).toBeNull();
      expect(await result(p.url, 'eth_getTransactionReceipt', [headTransfer])).toBeNull();
      expect(await result(p.url, 'eth_getLogs', [{ address: token, fromBlock: hex(H), toBlock: hex(H) }])).toEqual([]);
      expect(await result(p.url, 'eth_getLogs', [{ blockHash: tip.hash }])).toEqual([]);
      const nonceBefore = await result<Hex>(node, 'eth_getTransactionCount', [OUTSIDE, hex(H - 1n)]);
      expect(await result(p.url, 'eth_getTransactionCount', [OUTSIDE, 'latest'])).toBe(nonceBefore);
      expect(await result(p.url, 'eth_getTransactionCount', [OUTSIDE, hex(H)])).toBe(nonceBefore);
    });
  });

  describe('rate limits and failures', () => {
    it("rate-limit-429 answers HTTP 429 with Retry-After and Alchemy's words", async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['rate-limit-429'], share: 1 });
      const res = await post(p.url, { jsonrpc: '2.0', id: 9, method: 'eth_blockNumber', params: [] });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.json).toMatchObject({ jsonrpc: '2.0', id: 9, error: { code: 429 } });
      expect(res.json.error!.message).toMatch(/^Your app has exceeded its compute units per second capacity/);
    });

    it("rate-limit-32005 answers HTTP 200 with Infura's -32005", async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['rate-limit-32005'], share: 1 });
      const res = await call(p.url, 'eth_blockNumber');
      expect(res.status).toBe(200);
      expect(res.json.error).toMatchObject({ code: -32005, message: 'daily request count exceeded, request rate limited' });
    });

    it('dropped-connection closes the socket without an answer; slow answers late', async () => {
      const dropped = await imitate({ kind: 'evm', target: node, behaviours: ['dropped-connection'], share: 1 });
      await expect(call(dropped.url, 'eth_blockNumber')).rejects.toThrow();
      const slow = await imitate({ kind: 'evm', target: node, behaviours: ['slow:delayMs=300'], share: 1 });
      const t0 = performance.now();
      expect(BigInt(await result<Hex>(slow.url, 'eth_blockNumber'))).toBe(H);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    });
  });

  describe('range limits', () => {
    it('quicknode-range answers HTTP 413 with -32614 past its limit, in its words', async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['quicknode-range'], share: 1 });
      const refused = await post(p.url, { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: hex(H - 6n), toBlock: hex(H) }] });
      expect(refused.status).toBe(413);
      expect(refused.text).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32614,"message":"eth_getLogs is limited to a 5 range"}}');
      const served = await call(p.url, 'eth_getLogs', [{ address: token, fromBlock: hex(H - 5n), toBlock: hex(H) }]);
      expect(served.status).toBe(200);
      expect(served.json.result).toHaveLength(4); // blocks A (= H-4) and H
      p.set(['quicknode-range:rangeLimit=10000']);
      const wide = await call(p.url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(10_001n) }]);
      expect(wide.json.error!.message).toBe('eth_getLogs is limited to a 10,000 range');
      expect(p.answeredBy.get('quicknode-range')).toBe(2);
    });

    it('alchemy-range answers HTTP 400 with -32600 and the range that would work', async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['alchemy-range:rangeLimit=3'] });
      const res = await call(p.url, 'eth_getLogs', [{ fromBlock: hex(H - 3n), toBlock: hex(H) }]);
      expect(res.status).toBe(400);
      expect(res.json.error).toEqual({
        code: -32600,
        message: `You can make eth_getLogs requests with up to a 3 block range. Based on your parameters, this block range should work: [${hex(H - 3n)}, ${hex(H - 1n)}]`,
      });
      expect((await call(p.url, 'eth_getLogs', [{ fromBlock: hex(H - 2n), toBlock: hex(H) }])).json.result).toHaveLength(2);
    });

    it('blockpi-range, drpc-range and infura-range refuse in their own words', async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['blockpi-range:rangeLimit=2'] });
      const wide = [{ fromBlock: hex(H - 3n), toBlock: hex(H) }];
      expect((await call(p.url, 'eth_getLogs', wide)).json.error).toEqual({
        code: -32602,
        message: 'eth_getLogs is limited to 2 block range. Please check the parameter requirements at  https://docs.blockpi.io/documentations/api-reference',
      });
      p.set(['drpc-range:rangeLimit=3']);
      expect((await call(p.url, 'eth_getLogs', wide)).json.error).toEqual({ code: 35, message: 'ranges over 3 blocks are not supported on freetier' });
      p.set(['infura-range:rangeLimit=2']);
      expect((await call(p.url, 'eth_getLogs', wide)).json.error).toEqual({ code: -32602, message: 'range 3 exceeds limit of 2' });
      p.set([]);
      expect((await call(p.url, 'eth_getLogs', wide)).json.result).toHaveLength(2);
    });

    it('infura-results refuses an answer holding more logs than its limit, suggesting a range that fits', async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['infura-results:maxResults=2'] });
      const up = (n: bigint) => `0x${n.toString(16).toUpperCase()}`;
      const res = await call(p.url, 'eth_getLogs', [{ address: token, fromBlock: hex(A), toBlock: hex(H) }]);
      expect(res.json.error).toEqual({ code: -32005, message: `query returned more than 2 results. Try with this block range [${up(A)}, ${up(H - 1n)}].` });
      expect((await call(p.url, 'eth_getLogs', [{ address: token, fromBlock: hex(A), toBlock: hex(H - 1n) }])).json.result).toHaveLength(2);
    });

    it('bsc-dataseed-getlogs refuses every eth_getLogs, however small, and serves everything else', async () => {
      const p = await imitate({ kind: 'evm', target: node, behaviours: ['bsc-dataseed-getlogs'] });
      const head = await result<{ hash: Hex }>(node, 'eth_getBlockByNumber', ['latest', false]);
      for (const filter of [{ fromBlock: hex(H), toBlock: hex(H) }, { blockHash: head.hash }, {}]) {
        expect((await call(p.url, 'eth_getLogs', [filter])).json.error).toEqual({ code: -32005, message: 'limit exceeded' });
      }
      expect(BigInt(await result<Hex>(p.url, 'eth_blockNumber'))).toBe(H);
      expect(p.calls.get('eth_getLogs')).toBe(3);
    });
  });
});

describe('TRON', () => {
  let tron: TestTron;
  let node: string;
  let H: number;
  let txid: string;
  const tpost = async <T = Record<string, unknown>>(base: string, path: string, body: unknown = {}) => (await post(`${base}/wallet/${path}`, body)).json as unknown as T;

  beforeAll(async () => {
    tron = await startTestTron();
    node = tron.standin.url;
    await tron.mine(4);
    txid = await tron.sendToken(DEPOSIT, 1_000_000n);
    await tron.mine();
    H = Number(BigInt(await rpc<Hex>(tron.standin.anvil.rpcUrl, 'eth_blockNumber')));
  });
  afterAll(async () => {
    await tron?.stop();
  });

  it("lagging-backend hides the head block: no infos, no block, no transaction, while the upstream has them", async () => {
    const p = await imitate({ kind: 'tron', target: node, behaviours: ['lagging-backend'], share: 1 });
    expect(await tpost<unknown[]>(node, 'gettransactioninfobyblocknum', { num: H })).toHaveLength(2);
    expect(await tpost(p.url, 'gettransactioninfobyblocknum', { num: H })).toEqual([]);
    expect(await tpost(node, 'gettransactioninfobyid', { value: txid })).toMatchObject({ id: txid, blockNumber: H });
    expect(await tpost(p.url, 'gettransactioninfobyid', { value: txid })).toEqual({});
    expect(await tpost(p.url, 'gettransactionbyid', { value: txid })).toEqual({});
    expect(await tpost(p.url, 'getblockbynum', { num: H })).toEqual({});
    const head = await tpost<{ blockID: string }>(node, 'getnowblock');
    expect(await tpost(p.url, 'getblockbyid', { value: head.blockID })).toEqual({});
    expect(await tpost(p.url, 'getblock', { id_or_num: String(H), detail: false })).toEqual({});
    for (let i = 0; i < 6; i++) {
      const now = await tpost<{ block_header: { raw_data: { number: number } } }>(p.url, 'getnowblock');
      expect(H - now.block_header.raw_data.number).toBeGreaterThanOrEqual(1);
      expect(H - now.block_header.raw_data.number).toBeLessThanOrEqual(3);
    }
    const range = await tpost<{ block?: { block_header: { raw_data: { number: number } } }[] }>(p.url, 'getblockbylimitnext', { startNum: H - 4, endNum: H + 1 });
    const numbers = range.block!.map((b) => b.block_header.raw_data.number);
    expect(numbers[0]).toBe(H - 4);
    expect(Math.max(...numbers)).toBeLessThan(H);
    expect(p.calls.get('/wallet/getnowblock')).toBe(6);
  });

  it('no-history answers [] and {} for transaction infos on every call, and serves blocks', async () => {
    const p = await imitate({ kind: 'tron', target: node, behaviours: ['no-history'] });
    expect(await tpost(p.url, 'gettransactioninfobyblocknum', { num: H })).toEqual([]);
    expect(await tpost(p.url, 'gettransactioninfobyid', { value: txid })).toEqual({});
    expect(await tpost(p.url, 'gettransactionbyid', { value: txid })).toMatchObject({ txID: txid });
    expect(await tpost(p.url, 'getnowblock')).toMatchObject({ block_header: { raw_data: { number: H } } });
  });

  it('trongrid-403 suspends a client past the burst for the penalty, then serves it again', async () => {
    const p = await imitate({ kind: 'tron', target: node, behaviours: ['trongrid-403:burst=3'], penaltyMs: 1000 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(`${p.url}/wallet/getnowblock`, {})).status);
    expect(statuses).toEqual([200, 200, 200, 403]);
    const refused = await post(`${p.url}/wallet/getchainparameters`, {});
    expect(refused.status).toBe(403);
    expect(refused.text).toBe('{"Error":"The key exceeds the frequency limit(3), and the query server is suspended for 1s"}');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await post(`${p.url}/wallet/getnowblock`, {})).status).toBe(200);
    expect(p.answeredBy.get('trongrid-403')).toBe(2);
  });

  it('trongrid-503 and trongrid-429 answer plain statuses; dropped-connection answers nothing', async () => {
    const p = await imitate({ kind: 'tron', target: node, behaviours: ['trongrid-503'], share: 1 });
    expect((await post(`${p.url}/wallet/getnowblock`, {})).status).toBe(503);
    p.set(['trongrid-429']);
    expect((await post(`${p.url}/wallet/getnowblock`, {})).status).toBe(429);
    p.set(['dropped-connection']);
    await expect(post(`${p.url}/wallet/getnowblock`, {})).rejects.toThrow();
    p.set(['sibling-fork', 'rate-limit-429']); // EVM rows: a TRON imitation leaves them out
    expect((await post(`${p.url}/wallet/getnowblock`, {})).status).toBe(200);
  });
});

describe('the behaviour table and the npm-start option', () => {
  it('has one row per behaviour, each with a public source', () => {
    const names = BEHAVIOURS.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const row of BEHAVIOURS) expect(row.source.length).toBeGreaterThan(10);
  });

  it('expands the pool preset, keeps parameters, and refuses an unknown name or setting', () => {
    expect(parseImitationOption('pool')).toEqual(['lagging-backend', 'sibling-fork', 'rate-limit-429', 'dropped-connection']);
    expect(parseImitationOption('lagging-backend, quicknode-range:rangeLimit=10000')).toEqual(['lagging-backend', 'quicknode-range:rangeLimit=10000']);
    expect(parseImitationOption('none')).toEqual([]);
    expect(() => parseImitationOption('lagging-backend,lagging-backends')).toThrow(/unknown provider behaviour "lagging-backends": known are pool \(preset\), lagging-backend/);
    expect(() => parseImitationOption('quicknode-range:range=5')).toThrow(/its parameters are rangeLimit/);
  });
});
