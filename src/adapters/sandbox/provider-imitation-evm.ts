// The EVM half of the provider imitation: JSON-RPC over HTTP, single requests
// and batches (a batch is served by one backend of the pool). The provider's
// front door (range limits, eth_getLogs not served) checks each request before
// the backend sees it; the backend is the upstream node as is, a lagging one
// or one whose tip is an empty sibling of the real head. Sandbox and tests only.
import { keccak256, type Hex } from 'viem';
import { cachedHead, drawLag, type ContentBackend, type ImitationContext, type Served } from './provider-behaviours.js';

interface RpcRequest {
  jsonrpc?: string;
  id?: unknown;
  method: string;
  params?: unknown;
}
interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}
/** One request's answer; `status` when the provider sends it with an HTTP status other than 200. */
type Outcome = { result: unknown; status?: number } | { error: RpcError; status?: number };
type Block = Record<string, unknown> & { number: Hex; hash: Hex };
type LogFilter = { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown } & Record<string, unknown>;

/** How the backend that serves a request sees the chain: its head `tip` and the last block whose contents it has (`L`). */
interface View {
  L: bigint;
  tip: bigint;
  /** The sibling-fork backend: its tip block (empty) in place of the real block `tip`. */
  sibling?: Block;
}

const EMPTY_TRIE: Hex = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';
const EMPTY_BLOOM: Hex = `0x${'00'.repeat(256)}`;
/** Where each state-reading method carries its block parameter. */
const STATE_BLOCK_PARAM: Readonly<Record<string, number>> = {
  eth_getBalance: 1,
  eth_getTransactionCount: 1,
  eth_getCode: 1,
  eth_getStorageAt: 2,
  eth_call: 1,
  eth_estimateGas: 1,
};
const HEAD_TAGS = new Set(['latest', 'pending']);

const hex = (n: bigint): Hex => `0x${n.toString(16)}`;
const asNumber = (v: unknown): bigint | null => (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v) ? BigInt(v) : null);
const rpcError = (code: number, message: string, status?: number, data?: unknown): Outcome => ({ error: { code, message, ...(data === undefined ? {} : { data }) }, ...(status ? { status } : {}) });

/** The empty sibling of a real block: same number and parent, another hash, no transactions. */
export function siblingOf(real: Block): Block {
  return { ...real, hash: keccak256(real.hash), transactions: [], logsBloom: EMPTY_BLOOM, transactionsRoot: EMPTY_TRIE, receiptsRoot: EMPTY_TRIE, gasUsed: '0x0' };
}

export class EvmImitation {
  private readonly head: () => Promise<bigint>;

  constructor(private readonly ctx: ImitationContext) {
    this.head = cachedHead(async () => BigInt((await this.call('eth_blockNumber', [])) as Hex));
  }

  async serve(body: string, backend: ContentBackend): Promise<Served> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = null;
    }
    const batch = Array.isArray(parsed);
    const items = (batch ? parsed : [parsed]) as unknown[];
    const valid = items.length > 0 && items.every((i) => !!i && typeof i === 'object' && typeof (i as RpcRequest).method === 'string');
    if (!valid) return this.raw(body); // the node's own answer to what it cannot parse
    const view = await this.view(backend);
    const outcomes = await Promise.all((items as RpcRequest[]).map((r) => this.item(r, view)));
    const answers = outcomes.map((o, n) => {
      const { status: _status, ...rest } = o;
      return { jsonrpc: '2.0', id: (items[n] as RpcRequest).id ?? null, ...rest };
    });
    // A refusal the provider sends with its own HTTP status (QuickNode's 413) sets the response's status, batch or not.
    const status = outcomes.find((o) => o.status)?.status ?? 200;
    return { status, body: JSON.stringify(batch ? answers : answers[0]), headers: { 'content-type': 'application/json' } };
  }

  /** A request the backends never saw: the whole pool answers the same. */
  rateLimited429(body: string, retryAfterSeconds: number): Served {
    const message =
      'Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. If not, check out https://docs.alchemy.com/reference/throughput';
    return { status: 429, body: this.errorsFor(body, { code: 429, message }), headers: { 'content-type': 'application/json', 'retry-after': String(retryAfterSeconds) } };
  }

  rateLimited32005(body: string, backoffSeconds: number): Served {
    const error = {
      code: -32005,
      message: 'daily request count exceeded, request rate limited',
      data: { rate: { allowed_rps: 10, backoff_seconds: backoffSeconds, current_rps: 12.5 }, see: 'https://infura.io/dashboard' },
    };
    return { status: 200, body: this.errorsFor(body, error), headers: { 'content-type': 'application/json' } };
  }

  private errorsFor(body: string, error: RpcError): string {
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(body);
    } catch {
      /* answered with id null */
    }
    const one = (r: unknown) => ({ jsonrpc: '2.0', id: (r as RpcRequest | null)?.id ?? null, error });
    return JSON.stringify(Array.isArray(parsed) ? parsed.map(one) : one(parsed));
  }

  private async view(backend: ContentBackend): Promise<View | null> {
    if (backend === 'upstream') return null;
    const H = await this.head();
    if (backend === 'lagging-backend') {
      const L = H - drawLag(this.ctx);
      return { L: L < 0n ? 0n : L, tip: L < 0n ? 0n : L };
    }
    const real = (await this.call('eth_getBlockByNumber', [hex(H), false])) as Block | null;
    if (H === 0n || !real) return null; // genesis has no sibling
    return { L: H - 1n, tip: H, sibling: siblingOf(real) };
  }

  private async item(r: RpcRequest, view: View | null): Promise<Outcome> {
    const params = Array.isArray(r.params) ? r.params : [];
    if (r.method === 'eth_getLogs') {
      const refused = await this.frontDoor(params[0] as LogFilter | undefined);
      if (refused) return refused;
    }
    const outcome = view ? await this.fromView(r.method, params, view) : await this.forward(r.method, params);
    if (r.method === 'eth_getLogs' && this.ctx.rows().has('infura-results')) return this.infuraResults(params[0] as LogFilter, outcome);
    return outcome;
  }

  // ---- the provider's front door ------------------------------------------------------------

  private async frontDoor(filter: LogFilter | undefined): Promise<Outcome | null> {
    const rows = this.ctx.rows();
    if (rows.has('bsc-dataseed-getlogs')) {
      this.ctx.answered('bsc-dataseed-getlogs');
      return rpcError(-32005, 'limit exceeded');
    }
    if (!filter || typeof filter !== 'object' || filter.blockHash !== undefined) return null;
    const ranged = ['quicknode-range', 'alchemy-range', 'blockpi-range', 'drpc-range', 'infura-range'].filter((n) => rows.has(n));
    if (ranged.length === 0) return null;
    const H = await this.head();
    const from = await this.resolve(filter.fromBlock ?? 'latest', H);
    const to = await this.resolve(filter.toBlock ?? 'latest', H);
    if (from === null || to === null || to < from) return null; // the node's own error
    const span = to - from; // QuickNode, BlockPI, Infura count toBlock-fromBlock; Alchemy and dRPC count blocks
    for (const name of ranged) {
      const limit = BigInt(rows.param(name, 'rangeLimit'));
      const refusal = rangeRefusal(name, from, span, limit);
      if (refusal) {
        this.ctx.answered(name);
        return refusal;
      }
    }
    return null;
  }

  private infuraResults(filter: LogFilter, outcome: Outcome): Outcome {
    const max = this.ctx.rows().param('infura-results', 'maxResults');
    if (!('result' in outcome) || !Array.isArray(outcome.result) || outcome.result.length <= max) return outcome;
    // Infura suggests a range from fromBlock that its answer would fit in.
    const blocks = (outcome.result as { blockNumber: Hex }[]).map((l) => BigInt(l.blockNumber));
    const from = asNumber(filter.fromBlock) ?? blocks[0]!;
    const last = blocks[max] !== undefined && blocks[max]! > from ? blocks[max]! - 1n : from;
    const upper = (n: bigint) => `0x${n.toString(16).toUpperCase()}`;
    this.ctx.answered('infura-results');
    return rpcError(-32005, `query returned more than ${max} results. Try with this block range [${upper(from)}, ${upper(last)}].`);
  }

  // ---- a lagging or sibling backend ------------------------------------------------------

  private async fromView(method: string, params: unknown[], v: View): Promise<Outcome> {
    switch (method) {
      case 'eth_blockNumber':
        return { result: hex(v.tip) };
      case 'eth_getBlockByNumber': {
        const n = await this.resolve(params[0] ?? 'latest', v.tip);
        if (n === null) return this.forward(method, params);
        if (n > v.tip) return { result: null };
        if (v.sibling && n === v.tip) return { result: v.sibling };
        return this.forward(method, [hex(n), params[1] ?? false]);
      }
      case 'eth_getBlockByHash': {
        if (v.sibling && params[0] === v.sibling.hash) return { result: v.sibling };
        const out = await this.forward(method, params);
        return 'result' in out && beyond((out.result as Block | null)?.number, v.L) ? { result: null } : out;
      }
      case 'eth_getLogs':
        return this.logs(params, v);
      case 'eth_getTransactionReceipt':
      case 'eth_getTransactionByHash': {
        const out = await this.forward(method, params);
        return 'result' in out && beyond((out.result as { blockNumber?: unknown } | null)?.blockNumber, v.L) ? { result: null } : out;
      }
      case 'eth_getBlockReceipts': {
        const which = params[0] ?? 'latest';
        if (typeof which === 'string' && which.length === 66) {
          if (v.sibling && which === v.sibling.hash) return { result: [] };
          const n = await this.numberOfHash(which);
          return n !== null && n > v.L ? { result: null } : this.forward(method, params);
        }
        const n = await this.resolve(which, v.tip);
        if (n === null) return this.forward(method, params);
        if (n > v.tip) return { result: null };
        if (v.sibling && n === v.tip) return { result: [] };
        return this.forward(method, [hex(n)]);
      }
      default: {
        const at = STATE_BLOCK_PARAM[method];
        return at === undefined ? this.forward(method, params) : this.stateAt(method, params, at, v);
      }
    }
  }

  /** eth_getLogs on a backend that has blocks up to L: what older geth, erigon, besu and reth answer (see the row's sources). */
  private async logs(params: unknown[], v: View): Promise<Outcome> {
    const filter = (params[0] ?? {}) as LogFilter;
    if (typeof filter.blockHash === 'string') {
      if (v.sibling && filter.blockHash === v.sibling.hash) return { result: [] };
      const n = await this.numberOfHash(filter.blockHash);
      if (n !== null && n > v.L) return rpcError(-32000, 'unknown block');
      return this.forward('eth_getLogs', params);
    }
    const from = await this.resolve(filter.fromBlock ?? 'latest', v.tip);
    const to = await this.resolve(filter.toBlock ?? 'latest', v.tip);
    if (from === null || to === null || to < from) return this.forward('eth_getLogs', params);
    // Older geth, erigon and besu clamp the range to their head; reth answers [] for a fromBlock past it
    // (and clamps otherwise). For a request reaching past a lagging head the two give the same answer.
    if (from > v.L) return { result: [] };
    return this.forward('eth_getLogs', [{ ...filter, fromBlock: hex(from), toBlock: hex(to < v.L ? to : v.L) }, ...params.slice(1)]);
  }

  /** State read at the backend's own head; a block it does not have is "header not found", as geth says. */
  private async stateAt(method: string, params: unknown[], at: number, v: View): Promise<Outcome> {
    const args = [...params];
    const tag = args[at];
    if (tag && typeof tag === 'object') {
      const o = tag as { blockHash?: unknown; blockNumber?: unknown };
      if (typeof o.blockHash === 'string') {
        if (v.sibling && o.blockHash === v.sibling.hash) {
          args[at] = hex(v.L);
        } else {
          const n = await this.numberOfHash(o.blockHash);
          if (n !== null && n > v.L) return rpcError(-32000, 'header for hash not found');
        }
        return this.forward(method, args);
      }
      args[at] = o.blockNumber;
    }
    const n = await this.resolve(args[at] ?? 'latest', v.L);
    if (n === null) return this.forward(method, args);
    if (n > v.tip) return rpcError(-32000, 'header not found');
    while (args.length < at) args.push(undefined);
    // The sibling tip holds no transactions: its state is that of its parent.
    args[at] = hex(n > v.L ? v.L : n);
    return this.forward(method, args.map((a) => (a === undefined ? null : a)));
  }

  // ---- talking to the upstream --------------------------------------------------------------

  /** A block tag or number as a number; `head` is what 'latest' means to the backend serving it. */
  private async resolve(tag: unknown, head: bigint): Promise<bigint | null> {
    if (typeof tag === 'string' && HEAD_TAGS.has(tag)) return head;
    if (tag === 'earliest') return 0n;
    if (tag === 'safe' || tag === 'finalized') {
      const block = (await this.call('eth_getBlockByNumber', [tag, false])) as Block | null;
      const n = asNumber(block?.number);
      return n === null ? null : n < head ? n : head;
    }
    return asNumber(tag);
  }

  private async numberOfHash(hash: string): Promise<bigint | null> {
    const block = (await this.call('eth_getBlockByHash', [hash, false])) as Block | null;
    return asNumber(block?.number);
  }

  private async call(method: string, params: unknown[]): Promise<unknown> {
    const out = await this.forward(method, params);
    if ('error' in out) throw new Error(`${method}: ${out.error.message}`);
    return out.result;
  }

  private async forward(method: string, params: unknown[]): Promise<Outcome> {
    const res = await fetch(this.ctx.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: RpcError };
    return body.error ? { error: body.error } : { result: body.result ?? null };
  }

  private async raw(body: string): Promise<Served> {
    const res = await fetch(this.ctx.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: res.status, body: await res.text(), headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } };
  }
}

const beyond = (number: unknown, L: bigint) => {
  const n = asNumber(number);
  return n !== null && n > L;
};

/** Each provider's refusal of a too-wide eth_getLogs, in its own words (sources in BEHAVIOURS). */
function rangeRefusal(name: string, from: bigint, span: bigint, limit: bigint): Outcome | null {
  switch (name) {
    case 'quicknode-range':
      return span > limit ? rpcError(-32614, `eth_getLogs is limited to a ${limit.toLocaleString('en-US')} range`, 413) : null;
    case 'alchemy-range':
      return span + 1n > limit
        ? rpcError(-32600, `You can make eth_getLogs requests with up to a ${limit} block range. Based on your parameters, this block range should work: [${hex(from)}, ${hex(from + limit - 1n)}]`, 400)
        : null;
    case 'blockpi-range':
      return span > limit ? rpcError(-32602, `eth_getLogs is limited to ${limit} block range. Please check the parameter requirements at  https://docs.blockpi.io/documentations/api-reference`) : null;
    case 'drpc-range':
      return span + 1n > limit ? rpcError(35, `ranges over ${limit} blocks are not supported on freetier`) : null;
    case 'infura-range':
      return span > limit ? rpcError(-32602, `range ${span} exceeds limit of ${limit}`) : null;
    default:
      return null;
  }
}
