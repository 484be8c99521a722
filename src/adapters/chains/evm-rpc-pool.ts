// The JSON-RPC URLs of one EVM network, used as a pool (issue 30): each URL
// is a provider that may lag, rate-limit, refuse a log range or not serve a
// method at all, in its own words (provider-errors.ts). A call goes to the
// best URL that may take it: none in a rate-limit penalty (Retry-After
// honoured: no call to that URL before it ends), none that refused the method
// for good, lagging ones last; what the catalogue does not know (a revert, a
// refused transaction) is the caller's, as a JsonRpcFailure. Concurrent calls
// to one URL in the same tick go out as one JSON-RPC batch.
import { ChainUnavailableError } from '../../domain/chains/chain-port.js';
import type { Network } from '../../domain/money/networks.js';
import { classifyNodeError, type NodeAnswer, type ProviderError } from './provider-errors.js';
import { JsonRpcClient, JsonRpcFailure } from './json-rpc-client.js';
import type { NodeObserver } from './node-observer.js';

/** eth_getLogs over this range is refused by the URL: ask again over at most `limit` blocks (halve when unknown). */
export class RangeTooLargeError extends Error {
  constructor(
    readonly url: string,
    readonly limit: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'RangeTooLargeError';
  }
}

export interface EvmRpcPoolOptions {
  network: Network;
  urls: string[];
  timeoutMs?: number;
  /** Rounds over the URLs before giving up, with exponential backoff from `retryDelayMs`. */
  retryCount?: number;
  retryDelayMs?: number;
  /** The log range to start from (blocks); a URL's own limit, once learnt, lowers it for that URL. */
  logRange?: number;
  observer?: NodeObserver;
}

/** Blocks behind the best URL's head after which a URL is asked last. */
const DEMOTE_AFTER_BLOCKS = 3n;
/** How often the heads of all URLs are compared. */
const HEADS_EVERY_MS = 15_000;
/** A rate limit with no Retry-After keeps the URL out this long. */
const DEFAULT_PENALTY_MS = 1_000;
/** The longest the pool waits for a penalty to end within one call; longer ones fail the call. */
const MAX_PENALTY_WAIT_MS = 3_000;

class Endpoint {
  readonly client: JsonRpcClient;
  penaltyUntil = 0;
  /** Methods this URL does not serve (e.g. eth_getLogs on BSC's public endpoints). */
  readonly refused = new Set<string>();
  /** The most blocks this URL takes in one eth_getLogs, once it said so. */
  logRange: number | null = null;
  head: bigint | null = null;
  lag = 0n;
  /** Out of the pool for good (a node of another chain). */
  excluded = false;

  constructor(
    readonly url: string,
    readonly index: number,
    timeout: number,
  ) {
    this.client = new JsonRpcClient(url, { timeoutMs: timeout, batchSize: 100 });
  }
}

/** What a failed call said, for the catalogue. */
function answerOf(err: unknown, method: string): NodeAnswer & { transport?: ChainUnavailableError['kind'] } {
  if (!(err instanceof JsonRpcFailure)) return { status: undefined, code: undefined, message: String(err), method, transport: 'unreachable' };
  const f = err.failure;
  const transport: ChainUnavailableError['kind'] | undefined =
    f.transport ?? (f.status === undefined ? 'unreachable' : f.status === 429 ? 'rate_limited' : f.status >= 500 ? 'server_error' : f.code === undefined && f.status !== 200 ? 'bad_response' : undefined);
  return { status: f.status, code: f.code, message: f.text, method, retryAfter: f.retryAfter, transport };
}

export class EvmRpcPool {
  readonly network: Network;
  private readonly endpoints: Endpoint[];
  private readonly retryCount: number;
  private readonly retryDelayMs: number;
  private readonly observer: NodeObserver | undefined;
  private readonly configuredLogRange: number;
  private headsAt = 0;

  constructor(opts: EvmRpcPoolOptions) {
    if (opts.urls.length === 0) throw new Error(`${opts.network}: no RPC URL`);
    this.network = opts.network;
    const timeout = opts.timeoutMs ?? 10_000;
    this.endpoints = opts.urls.map((u, i) => new Endpoint(u, i, timeout));
    this.retryCount = opts.retryCount ?? 3;
    this.retryDelayMs = opts.retryDelayMs ?? 250;
    this.observer = opts.observer;
    this.configuredLogRange = opts.logRange ?? 1000;
  }

  get urls(): string[] {
    return this.endpoints.map((e) => e.url);
  }

  /** The most blocks one eth_getLogs may cover: the configured range, lowered to the smallest limit a URL serving logs gave. */
  logRange(): number {
    let range = this.configuredLogRange;
    for (const e of this.endpoints) if (!e.refused.has('eth_getLogs') && e.logRange !== null && e.logRange < range) range = e.logRange;
    return range;
  }

  /** A URL refused a range without saying its limit: the range it may take is at most `blocks`. */
  lowerLogRange(url: string, blocks: number): void {
    const e = this.endpoints.find((x) => x.url === url);
    if (e && (e.logRange === null || blocks < e.logRange)) e.logRange = Math.max(1, blocks);
  }

  /** The URLs that may take `method` now, best first; and when the earliest penalty of the others ends. */
  private usable(method: string): { now: Endpoint[]; soonest: number | null } {
    const t = Date.now();
    const serving = this.endpoints.filter((e) => !e.excluded && !e.refused.has(method));
    if (serving.length === 0) {
      throw new ChainUnavailableError(this.network, 'method_not_served', `${method}: none of the network's URLs serves it (${this.urls.join(', ')})`);
    }
    const now = serving.filter((e) => e.penaltyUntil <= t).sort((a, b) => (a.lag > b.lag ? 1 : a.lag < b.lag ? -1 : a.index - b.index));
    const waiting = serving.filter((e) => e.penaltyUntil > t).map((e) => e.penaltyUntil);
    return { now, soonest: waiting.length ? Math.min(...waiting) : null };
  }

  /** One call to the best URL that takes it; transient failures move on to the next URL and, after a round, back off. */
  async call<T>(method: string, params: unknown[]): Promise<T> {
    let last: Error | null = null;
    for (let round = 0; round <= this.retryCount; round++) {
      if (round > 0) await sleep(this.retryDelayMs * 2 ** (round - 1));
      const first = this.usable(method);
      let now = first.now;
      const soonest = first.soonest;
      if (now.length === 0 && soonest !== null) {
        const wait = soonest - Date.now();
        if (wait > MAX_PENALTY_WAIT_MS) {
          throw new ChainUnavailableError(this.network, 'rate_limited', `${method}: every URL is rate-limited for ${Math.ceil(wait / 1000)} s more`);
        }
        await sleep(wait);
        ({ now } = this.usable(method));
      }
      for (const e of now) {
        try {
          return await this.on<T>(e, method, params);
        } catch (err) {
          if (!(err instanceof ChainUnavailableError)) throw err;
          last = err;
        }
      }
    }
    throw last ?? new ChainUnavailableError(this.network, 'unreachable', `${method}: no URL answered`);
  }

  /** One call to one URL, its failure classified (and remembered for that URL); no retry. */
  private async on<T>(e: Endpoint, method: string, params: unknown[]): Promise<T> {
    try {
      return await e.client.request<T>(method, params);
    } catch (err) {
      throw this.classified(e, err, method);
    }
  }

  /** One call to the URL `url` of the pool, no retry (a probe of that URL). */
  callOn<T>(url: string, method: string, params: unknown[]): Promise<T> {
    const e = this.endpoints.find((x) => x.url === url);
    if (!e) throw new Error(`${url} is not a URL of ${this.network}`);
    return this.on<T>(e, method, params);
  }

  /** Takes a URL out of the pool for good (a node of another chain): no call goes to it. */
  exclude(url: string, reason: string, detail: string): void {
    const e = this.endpoints.find((x) => x.url === url);
    if (!e || e.excluded) return;
    e.excluded = true;
    this.observer?.unusable(this.network, url, reason, detail);
  }

  /** The same call on every URL, each on its own (a verdict that needs every node's word). */
  async onEvery<T>(method: string, params: unknown[]): Promise<{ url: string; value?: T; error?: Error }[]> {
    return Promise.all(
      this.endpoints.filter((e) => !e.excluded).map(async (e) => {
        try {
          return { url: e.url, value: await this.on<T>(e, method, params) };
        } catch (error) {
          return { url: e.url, error: error as Error };
        }
      }),
    );
  }

  private classified(e: Endpoint, err: unknown, method: string): Error {
    const answer = answerOf(err, method);
    const known: ProviderError | null = classifyNodeError(answer);
    const where = `(${e.url})`;
    if (known?.kind === 'range_too_large') {
      if (known.limit !== undefined) this.lowerLogRange(e.url, known.limit);
      this.observer?.error(this.network, e.url, 'range_too_large');
      return new RangeTooLargeError(e.url, known.limit, `${method}: ${answer.message.slice(0, 200)} ${where}`);
    }
    if (known?.kind === 'rate_limited') {
      const ms = known.penaltyMs ?? DEFAULT_PENALTY_MS;
      e.penaltyUntil = Date.now() + ms;
      this.observer?.error(this.network, e.url, 'rate_limited');
      this.observer?.penalty(this.network, e.url, ms, known.provider);
      return new ChainUnavailableError(this.network, 'rate_limited', `${method}: rate-limited for ${ms} ms (${known.provider}) ${where}`);
    }
    if (known?.kind === 'method_not_served') {
      if (!e.refused.has(method)) {
        e.refused.add(method);
        this.observer?.unusable(this.network, e.url, `${method}_refused`, `${answer.message.slice(0, 120)} (${known.provider})`);
      }
      this.observer?.error(this.network, e.url, 'method_not_served');
      return new ChainUnavailableError(this.network, 'method_not_served', `${method}: not served (${answer.message.slice(0, 120)}) ${where}`);
    }
    if (known?.kind === 'node_behind') {
      this.observer?.error(this.network, e.url, 'node_behind');
      return new ChainUnavailableError(this.network, 'node_behind', `${method}: the node is behind the block asked for (${answer.message.slice(0, 120)}) ${where}`);
    }
    if (answer.transport) {
      this.observer?.error(this.network, e.url, answer.transport);
      const said = answer.transport === 'timeout' ? 'the node did not answer in time' : answer.status ? `HTTP ${answer.status}` : 'no connection';
      return new ChainUnavailableError(this.network, answer.transport, `${method}: ${said} ${where}`);
    }
    return err as Error; // a JSON-RPC answer of the node itself (a revert, a refused transaction): the caller decides
  }

  /** Notes a URL's head; now and then compares every URL's head, and asks the laggards last. */
  async heads(): Promise<void> {
    if (this.endpoints.length < 2 || Date.now() - this.headsAt < HEADS_EVERY_MS) return;
    this.headsAt = Date.now();
    const answers = await this.onEvery<`0x${string}`>('eth_blockNumber', []);
    answers.forEach((a, i) => {
      if (a.value) this.endpoints[i]!.head = BigInt(a.value);
    });
    const best = this.endpoints.reduce<bigint | null>((m, e) => (e.head !== null && (m === null || e.head > m) ? e.head : m), null);
    if (best === null) return;
    for (const e of this.endpoints) {
      const lag = e.head === null ? best : best - e.head;
      const wasDemoted = e.lag > DEMOTE_AFTER_BLOCKS;
      e.lag = lag;
      this.observer?.lag(this.network, e.url, Number(lag));
      if (lag > DEMOTE_AFTER_BLOCKS && !wasDemoted) this.observer?.unusable(this.network, e.url, 'lagging', `${lag} blocks behind the best URL`);
      if (lag <= DEMOTE_AFTER_BLOCKS && wasDemoted) this.observer?.usable(this.network, e.url, 'lagging');
    }
  }

  /** Per URL: what it refused, its penalty, its lag and learnt log range (ops chains check). */
  status(): { url: string; refused: string[]; penaltyMs: number; lag: number; logRange: number | null }[] {
    return this.endpoints.map((e) => ({
      url: e.url,
      refused: [...e.refused],
      penaltyMs: Math.max(0, e.penaltyUntil - Date.now()),
      lag: Number(e.lag),
      logRange: e.logRange,
    }));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
