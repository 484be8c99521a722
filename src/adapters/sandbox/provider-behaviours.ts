// The behaviour table of the provider imitation (provider-imitation.ts): one
// row for each thing a hosted provider does that a single local node never
// does. Each row names the public source it copies. A hosted provider is a
// pool of backends behind one URL: a `share` row is one backend of that pool,
// serving a share of the requests; an `every` row is the provider's front door,
// which applies to every request it concerns (a range limit, a method it does
// not serve, a node setting); a `burst` row starts refusing once a client goes
// past a request rate. Sandbox and tests only; never on the production path.

export type ImitationKind = 'evm' | 'tron';

/** How a row picks the requests it answers. */
export type BehaviourMode = 'share' | 'every' | 'burst';

export interface BehaviourRow {
  name: string;
  /** The public source of the real behaviour (issue, repository path, docs page). */
  source: string;
  kinds: ImitationKind[];
  mode: BehaviourMode;
  /** Parameters and their defaults; a spec sets them as `name:key=value[:key=value]`. */
  params: Readonly<Record<string, number>>;
  /** What the row answers, in a sentence. */
  summary: string;
}

export const BEHAVIOURS: readonly BehaviourRow[] = [
  // ---- backends of the pool (a `share` of requests) ------------------------------------------
  {
    name: 'lagging-backend',
    // ethereum/execution-apis#296 (cloudflare answers [] for blocks it does not have yet);
    // paradigmxyz/reth#18098 ("erigon and besu reply with an empty list");
    // ethereum/execution-apis#875 (reth answers [] for a fromBlock past its head);
    // tronprotocol/java-tron Wallet.getTransactionInfoByBlockNum (catches ItemNotFoundException: []).
    source:
      'ethereum/execution-apis#296; paradigmxyz/reth#18098; ethereum/execution-apis#875; tronprotocol/java-tron framework/src/main/java/org/tron/core/Wallet.java (getTransactionInfoByBlockNum)',
    kinds: ['evm', 'tron'],
    mode: 'share',
    params: { minLag: 1, maxLag: 3 },
    summary: 'a backend minLag..maxLag blocks behind: later blocks, receipts and logs are missing (null, [] or {}), state is read at its own head',
  },
  {
    name: 'sibling-fork',
    // A one-block reorg between two reads of a load-balanced URL: ponder-sh/ponder
    // packages/core/src/sync-realtime/ reconciles by parentHash and asks for logs by blockHash for this reason.
    source: 'ponder-sh/ponder packages/core/src/sync-realtime/ (reorg handling); ethereum/execution-apis#296',
    kinds: ['evm'],
    mode: 'share',
    params: {},
    summary: 'a backend whose tip is an empty sibling of the real head (same number and parent, other hash)',
  },
  {
    name: 'rate-limit-429',
    // https://docs.alchemy.com/reference/throughput: HTTP 429, code 429, "Your app has exceeded its compute units per second capacity..."
    source: 'https://docs.alchemy.com/reference/throughput',
    kinds: ['evm'],
    mode: 'share',
    params: { retryAfterSeconds: 1 },
    summary: "HTTP 429 with Retry-After and Alchemy's JSON-RPC error 429",
  },
  {
    name: 'rate-limit-32005',
    // Infura's wording; client retry policies match it, e.g. gakonst/ethers-rs
    // ethers-providers/src/rpc/transports/retry.rs ("also thrown by infura if out of budget for the day and ratelimited").
    source: 'https://docs.infura.io/api/networks/ethereum/how-to/avoid-rate-limiting; gakonst/ethers-rs ethers-providers/src/rpc/transports/retry.rs',
    kinds: ['evm'],
    mode: 'share',
    params: { backoffSeconds: 1 },
    summary: "HTTP 200 with Infura's -32005 'daily request count exceeded, request rate limited'",
  },
  {
    name: 'dropped-connection',
    // alchemyplatform/alchemy-sdk-js#64 ("read ECONNRESET" then "504: Gateway Timeout", sporadically).
    source: 'alchemyplatform/alchemy-sdk-js#64',
    kinds: ['evm', 'tron'],
    mode: 'share',
    params: {},
    summary: 'the socket is destroyed without an answer',
  },
  {
    name: 'slow',
    // alchemyplatform/alchemy-sdk-js#64 (gateway timeouts); Infura's eth_getLogs may run up to 10 s (INFURA/infura#237 quotes the docs).
    source: 'alchemyplatform/alchemy-sdk-js#64; INFURA/infura#237',
    kinds: ['evm', 'tron'],
    mode: 'share',
    params: { delayMs: 2000 },
    summary: 'answered as the upstream answers, after delayMs',
  },
  {
    name: 'trongrid-503',
    source: 'https://developers.tron.network/reference/rate-limits (TronGrid)',
    kinds: ['tron'],
    mode: 'share',
    params: {},
    summary: 'HTTP 503, plain',
  },
  {
    name: 'trongrid-429',
    source: 'https://developers.tron.network/reference/rate-limits (TronGrid)',
    kinds: ['tron'],
    mode: 'share',
    params: {},
    summary: 'HTTP 429, plain',
  },
  // ---- the provider's front door (every request it concerns) --------------------------------
  {
    name: 'quicknode-range',
    // HTTP 413, -32614 "eth_getLogs is limited to a 10,000 range" (ponder-sh/ponder packages/utils/src/getLogsRetryHelper.ts
    // and _test/quicknode.test.ts: toBlock-fromBlock = limit passes, limit+1 is refused); free plans allow 5 (eternalsafe/wallet#57).
    source: 'ponder-sh/ponder packages/utils/src/getLogsRetryHelper.ts, packages/utils/src/_test/quicknode.test.ts; eternalsafe/wallet#57',
    kinds: ['evm'],
    mode: 'every',
    params: { rangeLimit: 5 },
    summary: 'eth_getLogs with toBlock-fromBlock > rangeLimit: HTTP 413, -32614',
  },
  {
    name: 'alchemy-range',
    // HTTP 400, -32600 "You can make eth_getLogs requests with up to a 500 block range. Based on your parameters, this block
    // range should work: [0x1a30dfd, 0x1a30ff0]" (boundless-xyz/boundless#838); 501 blocks refused, 500 pass (risc0/risc0-ethereum#656).
    source: 'boundless-xyz/boundless#838; risc0/risc0-ethereum#656; ponder-sh/ponder packages/utils/src/getLogsRetryHelper.ts',
    kinds: ['evm'],
    mode: 'every',
    params: { rangeLimit: 500 },
    summary: 'eth_getLogs over more than rangeLimit blocks: HTTP 400, -32600 with a suggested range',
  },
  {
    name: 'blockpi-range',
    // -32602 "eth_getLogs is limited to 1024 block range. Please check the parameter requirements at  https://docs.blockpi.io/documentations/api-reference"
    // (two spaces before the address, as BlockPI sends it); toBlock-fromBlock = 1024 passes (ponder _test/blockpi.test.ts).
    source: 'ponder-sh/ponder packages/utils/src/_test/blockpi.test.ts; https://docs.blockpi.io/documentations/api-reference',
    kinds: ['evm'],
    mode: 'every',
    params: { rangeLimit: 1024 },
    summary: 'eth_getLogs with toBlock-fromBlock > rangeLimit: -32602',
  },
  {
    name: 'drpc-range',
    // code 35 "ranges over 10000 blocks are not supported on freetier" (foundry-rs/foundry#12687; the code as quoted in
    // public clients' tests of dRPC's answer).
    source: 'foundry-rs/foundry#12687',
    kinds: ['evm'],
    mode: 'every',
    params: { rangeLimit: 10000 },
    summary: 'eth_getLogs over more than rangeLimit blocks: code 35, freetier',
  },
  {
    name: 'infura-range',
    // -32602 "range 1000000 exceeds limit of 10000" (INFURA/infura#237: the live API, unlike its docs).
    source: 'INFURA/infura#237',
    kinds: ['evm'],
    mode: 'every',
    params: { rangeLimit: 10000 },
    summary: 'eth_getLogs with toBlock-fromBlock > rangeLimit: -32602',
  },
  {
    name: 'infura-results',
    // -32005 "query returned more than 10000 results. Try with this block range [0x.., 0x..]." (docs.infura.io eth_getLogs
    // constraints; ponder _test/infura.test.ts expects "Try with this block range").
    source: 'https://docs.infura.io/api/networks/ethereum/json-rpc-methods/eth_getlogs; ponder-sh/ponder packages/utils/src/_test/infura.test.ts',
    kinds: ['evm'],
    mode: 'every',
    params: { maxResults: 10000 },
    summary: 'eth_getLogs whose answer holds more than maxResults logs: -32005 with a suggested range',
  },
  {
    name: 'bsc-dataseed-getlogs',
    // BSC's public bsc-dataseed* endpoints: every eth_getLogs → -32005 "limit exceeded" (a method not served).
    source: 'bnb-chain/bsc#1215; bnb-chain/docs-site#621',
    kinds: ['evm'],
    mode: 'every',
    params: {},
    summary: "every eth_getLogs: -32005 'limit exceeded'",
  },
  {
    name: 'no-history',
    // java-tron with storage.transHistory.switch off: TransactionRetStore.put is a no-op, so transaction infos are never found.
    source: 'tronprotocol/java-tron chainbase/src/main/java/org/tron/core/store/TransactionRetStore.java; Wallet.getTransactionInfoByBlockNum',
    kinds: ['tron'],
    mode: 'every',
    params: {},
    summary: 'gettransactioninfobyblocknum always [], gettransactioninfobyid always {}',
  },
  {
    name: 'trongrid-403',
    // Without a key: 403 {"Error":"The key exceeds the frequency limit(30), and the query server is suspended for 30s"}, then
    // every request refused for the penalty (developers.tron.network, "Rate Limits").
    source: 'https://developers.tron.network/reference/rate-limits (TronGrid)',
    kinds: ['tron'],
    mode: 'burst',
    params: { burst: 30 },
    summary: 'more than `burst` requests within 1 s: HTTP 403, then every request 403 for penaltyMs',
  },
];

/** Named sets of rows for the npm-start option. */
export const PRESETS: Readonly<Record<string, readonly string[]>> = {
  pool: ['lagging-backend', 'sibling-fork', 'rate-limit-429', 'dropped-connection'],
};

const rowByName = new Map(BEHAVIOURS.map((r) => [r.name, r]));

/** A spec (`name` or `name:key=value[:key=value]`) checked against the table. */
function parseSpec(spec: string): { row: BehaviourRow; params: Record<string, number> } {
  const [name = '', ...settings] = spec.trim().split(':');
  const row = rowByName.get(name);
  if (!row) {
    const known = [...Object.keys(PRESETS).map((p) => `${p} (preset)`), ...BEHAVIOURS.map((r) => r.name)].join(', ');
    throw new Error(`unknown provider behaviour "${name}": known are ${known}`);
  }
  const params = { ...row.params };
  for (const setting of settings) {
    const m = /^([A-Za-z]+)=(\d+(?:\.\d+)?)$/.exec(setting);
    if (!m || !(m[1]! in row.params)) {
      const keys = Object.keys(row.params);
      throw new Error(`bad setting "${setting}" for provider behaviour ${name}: ${keys.length ? `its parameters are ${keys.join(', ')} (key=number)` : 'it has no parameters'}`);
    }
    params[m[1]!] = Number(m[2]);
  }
  return { row, params };
}

/**
 * Parses the npm-start option: a comma-separated list of row names (each may
 * carry parameters, `quicknode-range:rangeLimit=10000`) and presets (`pool`).
 * `none` or an empty value turns every row off. Throws on an unknown name.
 */
export function parseImitationOption(value: string): string[] {
  const out: string[] = [];
  for (const part of value.split(',').map((p) => p.trim())) {
    if (!part || part === 'none') continue;
    for (const spec of PRESETS[part] ?? [part]) {
      parseSpec(spec);
      if (!out.includes(spec)) out.push(spec);
    }
  }
  return out;
}

/** The rows that are on for one imitation, with their parameters. Rows of the other kind are left out. */
export class ActiveRows {
  private constructor(private readonly on: ReadonlyMap<string, Record<string, number>>) {}

  static of(kind: ImitationKind, specs: string[]): ActiveRows {
    const on = new Map<string, Record<string, number>>();
    // Presets (`pool`) stand for their rows here too.
    for (const spec of specs.flatMap((s) => PRESETS[s.trim()] ?? [s])) {
      const { row, params } = parseSpec(spec);
      if (row.kinds.includes(kind)) on.set(row.name, params);
    }
    return new ActiveRows(on);
  }

  has(name: string): boolean {
    return this.on.has(name);
  }

  /** A parameter of a row that is on (its default when not set). */
  param(name: string, key: string): number {
    const value = this.on.get(name)?.[key] ?? rowByName.get(name)?.params[key];
    if (value === undefined) throw new Error(`provider behaviour ${name} has no parameter ${key}`);
    return value;
  }

  /** The backends of the pool that are on (table order). */
  shareRows(): string[] {
    return BEHAVIOURS.filter((r) => r.mode === 'share' && this.on.has(r.name)).map((r) => r.name);
  }
}

/** mulberry32: a small seeded PRNG, so that a run of the imitation can be repeated. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What one kind's imitation needs from the proxy around it. */
export interface ImitationContext {
  target: string;
  rows(): ActiveRows;
  rng(): number;
  /** Counts a call by method (EVM) or path (TRON). */
  countCall(key: string): void;
  /** Counts a row (or 'upstream') as having shaped an answer. */
  answered(name: string): void;
}

/** An HTTP answer of the imitation. */
export interface Served {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** Which backend of the pool serves a request's contents. */
export type ContentBackend = 'upstream' | 'lagging-backend' | 'sibling-fork';

/** A lag drawn for one request: minLag..maxLag blocks. */
export function drawLag(ctx: ImitationContext): bigint {
  const rows = ctx.rows();
  const min = Math.max(0, Math.floor(rows.param('lagging-backend', 'minLag')));
  const max = Math.max(min, Math.floor(rows.param('lagging-backend', 'maxLag')));
  return BigInt(min + Math.floor(ctx.rng() * (max - min + 1)));
}

/** The upstream's head, read at most every `ttlMs` (default: for every request, so a lag is exact right after a block; concurrent readers share one read). */
export function cachedHead(read: () => Promise<bigint>, ttlMs = 0): () => Promise<bigint> {
  let value = 0n;
  let at = -Infinity;
  let pending: Promise<bigint> | null = null;
  return () => {
    if (performance.now() - at <= ttlMs) return Promise.resolve(value);
    pending ??= read()
      .then((v) => {
        value = v;
        at = performance.now();
        return v;
      })
      .finally(() => {
        pending = null;
      });
    return pending;
  };
}
