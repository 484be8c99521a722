// The HTTP client of a TRON network's full nodes (java-tron, TronGrid, or the
// sandbox's stand-in), over the network's URLs; the TRON adapter
// (tron-reading.ts, tron-chain.ts) reads and sends through it.
// - Reads are plain JSON POSTs (fetch), so retries, time-outs and fallback
//   are this adapter's own; tronweb builds and signs transactions (the
//   sandbox, and the sending side).
// - Nodes: several URLs (comma-separated), each retried with backoff on 429,
//   5xx and time-outs before the next is tried; what still fails is a
//   ChainUnavailableError with its kind.
// - A provider's rate limit keeps its URL out for the penalty its words give
//   (provider-errors.ts); a URL found to keep no transaction history is never
//   asked for transaction infos.
import { ChainUnavailableError } from '../../domain/chains/chain-port.js';
import { TransferRefused } from '../../domain/transfers/ports.js';

/** The endpoints that build a transaction (and validate it as they do). */
const BUILDERS = new Set(['createtransaction', 'triggersmartcontract', 'freezebalancev2', 'delegateresource', 'undelegateresource', 'unfreezebalancev2', 'withdrawexpireunfreeze']);
import type { Network } from '../../domain/money/networks.js';
import type { NodeObserver } from './node-observer.js';
import { UrlPool } from './url-pool.js';
import { classifyNodeError } from './provider-errors.js';
import { AnswerTooLargeError, readCapped } from './read-capped.js';
import { urlLabel } from './url-label.js';

export interface TronNodeOptions {
  network: Network;
  /** One or more full-node HTTP API URLs, tried in order. */
  urls: string[];
  /** Sent as TRON-PRO-API-KEY (TronGrid). */
  apiKey?: string;
  timeoutMs?: number;
  retryCount?: number;
  retryDelayMs?: number;
  observer?: NodeObserver;
}

/**
 * JSON as java-tron reads and writes it: amounts (int64 sun, token units) are
 * plain JSON integers. They are bigints here and never pass through a JS
 * number: each is written as a marked string, then unquoted.
 */
const BIG = '\u0000big:';
export const tronJson = (body: unknown): string =>
  JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? `${BIG}${v}` : v)).replace(/"\\u0000big:(-?\d+)"/g, '$1');

/** What a node without transaction history (storage.transHistory.switch off) answers empty. */
const HISTORY_PATHS = new Set(['wallet/gettransactioninfobyblocknum', 'wallet/gettransactioninfobyid']);
/** A rate limit with no penalty of its own keeps the URL out this long. */
const DEFAULT_PENALTY_MS = 1_000;

/** The message of a refusal: hex-encoded text on java-tron. */
export function refusalText(message: unknown): string {
  if (typeof message !== 'string') return '';
  return /^([0-9a-fA-F]{2})+$/.test(message) ? Buffer.from(message, 'hex').toString('utf8') : message;
}

/** The network's full nodes: POSTs to their HTTP API, across the URLs. */
export class TronNode {
  readonly urls: string[];
  private readonly network: Network;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly observer: NodeObserver | undefined;
  /** Which URL takes a call (penalties, refusals, laggards last): the one pool of the chain adapters. */
  private readonly pool: UrlPool;

  constructor(opts: TronNodeOptions) {
    if (opts.urls.length === 0) throw new Error(`${opts.network}: no TRON node URL`);
    this.network = opts.network;
    this.urls = opts.urls.map((u) => u.replace(/\/+$/, ''));
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.observer = opts.observer;
    this.pool = new UrlPool({ network: opts.network, urls: this.urls, retryCount: opts.retryCount, retryDelayMs: opts.retryDelayMs, observer: opts.observer });
    this.headers = { 'content-type': 'application/json', ...(opts.apiKey ? { 'TRON-PRO-API-KEY': opts.apiKey } : {}) };
  }

  /** The URL keeps no transaction history (storage.transHistory.switch is off): it is never asked for transaction infos again. */
  keepsNoHistory(base: string, why: string): void {
    this.pool.refuse(base, [...HISTORY_PATHS], 'no_transaction_history', why);
  }

  /** Now and then (two URLs or more), every URL's head compared with the best: a laggard is asked last, and the operator told. */
  heads(headOf: (base: string) => Promise<bigint>): Promise<void> {
    return this.pool.heads(headOf);
  }

  /** One POST to the node's HTTP API, retried on transient failures and across the URLs (none during its rate-limit penalty). */
  post<T>(path: string, body: Record<string, unknown>): Promise<T> {
    return this.pool.run(
      path,
      (base) => this.postTo<T>(base, path, body),
      () => new ChainUnavailableError(this.network, 'method_not_served', `${path}: no URL keeps transaction history (storage.transHistory.switch is off on every node)`),
    );
  }

  /** One POST to one URL, no retry; its failure classified by the providers' catalogue (a rate limit keeps the URL out for its penalty). */
  async postTo<T>(base: string, path: string, body: Record<string, unknown>): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}/${path}`, { method: 'POST', headers: this.headers, body: tronJson(body), signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const timeout = (err as Error).name === 'TimeoutError';
      this.observer?.error(this.network, base, timeout ? 'timeout' : 'unreachable');
      throw new ChainUnavailableError(this.network, timeout ? 'timeout' : 'unreachable', `${path}: ${timeout ? 'the node did not answer in time' : 'no connection'} (${urlLabel(base)})`);
    }
    let text: string;
    try {
      text = await readCapped(res);
    } catch (err) {
      if (err instanceof AnswerTooLargeError) throw new ChainUnavailableError(this.network, 'bad_response', `${path}: ${err.message} (${urlLabel(base)})`);
      throw new ChainUnavailableError(this.network, 'unreachable', `${path}: the connection dropped (${urlLabel(base)})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const error = parsed && typeof parsed === 'object' && 'Error' in parsed ? String((parsed as { Error: unknown }).Error) : null;
    if (res.ok && parsed !== undefined && error === null) return parsed as T;
    // java-tron validates what it is asked to build: a refusal of the request, in the node's words, not a fault of the
    // node. Only from the endpoints that build a transaction: elsewhere one URL's word must not end anything for good.
    if (res.ok && error !== null && BUILDERS.has(path.replace(/^wallet\//, '')) && /ContractValidateException/.test(error)) {
      throw new TransferRefused(this.network, `${this.network}: ${path} refused by the node: ${error.replace(/^class [\w.]+ ?: ?/, '').slice(0, 300)}`);
    }
    const known = classifyNodeError({ status: res.status, code: undefined, message: error ?? text.slice(0, 300), method: path, retryAfter: res.headers.get('retry-after') });
    if (known?.kind === 'rate_limited' || res.status === 429) {
      const ms = known?.penaltyMs ?? DEFAULT_PENALTY_MS;
      this.observer?.error(this.network, base, 'rate_limited');
      this.pool.penalize(base, ms, known?.provider ?? 'http-429');
      throw new ChainUnavailableError(this.network, 'rate_limited', `${path}: HTTP ${res.status}, rate-limited for ${ms} ms (${urlLabel(base)})`);
    }
    if (res.status >= 500) {
      this.observer?.error(this.network, base, 'server_error');
      throw new ChainUnavailableError(this.network, 'server_error', `${path}: HTTP ${res.status} (${urlLabel(base)})`);
    }
    this.observer?.error(this.network, base, 'bad_response');
    const reason = error ?? (parsed === undefined ? `HTTP ${res.status}, not JSON` : `HTTP ${res.status}`);
    throw new ChainUnavailableError(this.network, 'bad_response', `${path}: ${reason.slice(0, 300)} (${urlLabel(base)})`);
  }
}
