// The JSON-RPC URLs of one EVM network (issue 30): each URL is a provider
// that may lag, rate-limit, refuse a log range or not serve a method at all,
// in its own words (provider-errors.ts). Which URL takes a call is the
// network's UrlPool (url-pool.ts: penalties honoured, refusals remembered,
// laggards last); this file speaks JSON-RPC to them, reads their answers
// through the catalogue and learns each URL's log range. What the catalogue
// does not know (a revert, a refused transaction) is the caller's, as a
// JsonRpcFailure. Concurrent calls to one URL in the same tick go out as one
// JSON-RPC batch.
import { ChainUnavailableError } from '../../domain/chains/chain-port.js';
import type { Network } from '../../domain/money/networks.js';
import { classifyNodeError, type NodeAnswer, type ProviderError } from './provider-errors.js';
import { JsonRpcClient, JsonRpcFailure } from './json-rpc-client.js';
import type { NodeObserver } from './node-observer.js';
import { UrlPool } from './url-pool.js';
import { urlLabel } from './url-label.js';

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

/** A rate limit with no Retry-After keeps the URL out this long. */
const DEFAULT_PENALTY_MS = 1_000;

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
  private readonly pool: UrlPool;
  private readonly clients = new Map<string, JsonRpcClient>();
  /** Per URL: the most blocks it takes in one eth_getLogs, once it said so. */
  private readonly logRanges = new Map<string, number>();
  private readonly observer: NodeObserver | undefined;
  private readonly configuredLogRange: number;

  constructor(opts: EvmRpcPoolOptions) {
    if (opts.urls.length === 0) throw new Error(`${opts.network}: no RPC URL`);
    this.network = opts.network;
    this.pool = new UrlPool({ network: opts.network, urls: opts.urls, retryCount: opts.retryCount, retryDelayMs: opts.retryDelayMs, observer: opts.observer });
    for (const u of opts.urls) this.clients.set(u, new JsonRpcClient(u, { timeoutMs: opts.timeoutMs ?? 10_000, batchSize: 100 }));
    this.observer = opts.observer;
    this.configuredLogRange = opts.logRange ?? 1000;
  }

  get urls(): string[] {
    return this.pool.urls;
  }

  /** The most blocks one eth_getLogs may cover: the configured range, lowered to the smallest limit a URL serving logs gave. */
  logRange(): number {
    let range = this.configuredLogRange;
    for (const [url, limit] of this.logRanges) if (!this.pool.refuses(url, 'eth_getLogs') && limit < range) range = limit;
    return range;
  }

  /** A URL refused a range without saying its limit: the range it may take is at most `blocks`. */
  lowerLogRange(url: string, blocks: number): void {
    const known = this.logRanges.get(url);
    if (known === undefined || blocks < known) this.logRanges.set(url, Math.max(1, blocks));
  }

  /** One call to the best URL that takes it; transient failures move on to the next URL and, after a round, back off. */
  call<T>(method: string, params: unknown[]): Promise<T> {
    return this.pool.run(
      method,
      (url) => this.callOn<T>(url, method, params),
      () => new ChainUnavailableError(this.network, 'method_not_served', `${method}: none of the network's URLs serves it (${this.urls.join(', ')})`),
    );
  }

  /** One call to the URL `url` of the pool, its failure classified (and remembered for that URL); no retry. */
  async callOn<T>(url: string, method: string, params: unknown[]): Promise<T> {
    const client = this.clients.get(url);
    if (!client) throw new Error(`${url} is not a URL of ${this.network}`);
    try {
      return await client.request<T>(method, params);
    } catch (err) {
      throw this.classified(url, err, method);
    }
  }

  /** Takes a URL out of the pool for good (a node of another chain): no call goes to it. */
  exclude(url: string, reason: string, detail: string): void {
    this.pool.exclude(url, reason, detail);
  }

  /** The same call on every URL, each on its own (a verdict that needs every node's word). */
  /** The same call to every URL that serves the method; `known` gives a URL's answer already read another way (no call then). */
  async onEvery<T>(method: string, params: unknown[], known?: (url: string) => T | undefined): Promise<{ url: string; value?: T; error?: Error }[]> {
    return Promise.all(
      this.pool.serving(method).map(async (url) => {
        try {
          const value = known?.(url);
          return { url, value: value !== undefined ? value : await this.callOn<T>(url, method, params) };
        } catch (error) {
          return { url, error: error as Error };
        }
      }),
    );
  }

  private classified(url: string, err: unknown, method: string): Error {
    const answer = answerOf(err, method);
    const known: ProviderError | null = classifyNodeError(answer);
    const where = `(${urlLabel(url)})`;
    if (known?.kind === 'range_too_large') {
      if (known.limit !== undefined) this.lowerLogRange(url, known.limit);
      this.observer?.error(this.network, url, 'range_too_large');
      return new RangeTooLargeError(url, known.limit, `${method}: ${answer.message.slice(0, 200)} ${where}`);
    }
    if (known?.kind === 'rate_limited') {
      const ms = known.penaltyMs ?? DEFAULT_PENALTY_MS;
      this.observer?.error(this.network, url, 'rate_limited');
      this.pool.penalize(url, ms, known.provider);
      return new ChainUnavailableError(this.network, 'rate_limited', `${method}: rate-limited for ${ms} ms (${known.provider}) ${where}`);
    }
    if (known?.kind === 'method_not_served') {
      this.pool.refuse(url, [method], `${method}_refused`, `${answer.message.slice(0, 120)} (${known.provider})`);
      this.observer?.error(this.network, url, 'method_not_served');
      return new ChainUnavailableError(this.network, 'method_not_served', `${method}: not served (${answer.message.slice(0, 120)}) ${where}`);
    }
    if (known?.kind === 'node_behind') {
      this.observer?.error(this.network, url, 'node_behind');
      return new ChainUnavailableError(this.network, 'node_behind', `${method}: the node is behind the block asked for (${answer.message.slice(0, 120)}) ${where}`);
    }
    if (answer.transport) {
      this.observer?.error(this.network, url, answer.transport);
      const said = answer.transport === 'timeout' ? 'the node did not answer in time' : answer.status ? `HTTP ${answer.status}` : 'no connection';
      return new ChainUnavailableError(this.network, answer.transport, `${method}: ${said} ${where}`);
    }
    return err as Error; // a JSON-RPC answer of the node itself (a revert, a refused transaction): the caller decides
  }

  /** Now and then compares every URL's head, and asks the laggards last. */
  heads(): Promise<void> {
    return this.pool.heads(async (url) => BigInt(await this.callOn<`0x${string}`>(url, 'eth_blockNumber', [])));
  }

  /** Per URL: what it refused, its penalty, its lag and learnt log range (ops chains check). */
  status(): { url: string; refused: string[]; penaltyMs: number; lag: number; logRange: number | null }[] {
    return this.urls.map((url) => ({
      url,
      refused: this.pool.refused(url),
      penaltyMs: this.pool.penaltyLeft(url),
      lag: this.pool.lagOf(url),
      logRange: this.logRanges.get(url) ?? null,
    }));
  }
}
