// The node URLs of one network as a pool (issue 30, ADR 0031), whatever the
// protocol (EVM JSON-RPC, TRON's HTTP API): which URL may take a call now and
// in what order. A URL in a rate-limit penalty is not called until it ends; a
// URL that refused a method for good is skipped for it; a URL of another chain
// is out; a URL more than DEMOTE_AFTER_BLOCKS behind the best is asked last.
// A call goes round the usable URLs, and round again after a backoff; what the
// URLs said is the adapters' to classify (provider-errors.ts).
import { ChainUnavailableError } from '../../domain/chains/chain-port.js';
import type { Network } from '../../domain/money/networks.js';
import type { NodeObserver } from './node-observer.js';

export interface UrlPoolOptions {
  network: Network;
  urls: string[];
  /** Rounds over the URLs before giving up, with exponential backoff from `retryDelayMs`. */
  retryCount?: number;
  retryDelayMs?: number;
  observer?: NodeObserver;
}

/** Blocks behind the best URL after which a URL is asked last. */
const DEMOTE_AFTER_BLOCKS = 3n;
/** How often the heads of all URLs are compared (two URLs or more). */
const HEADS_EVERY_MS = 15_000;
/** The longest a call waits for a penalty to end; longer ones fail the call (the step backs off). */
const MAX_PENALTY_WAIT_MS = 3_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

interface UrlState {
  penaltyUntil: number;
  /** Methods (EVM) or paths (TRON) the URL does not serve. */
  refused: Set<string>;
  excluded: boolean;
  lag: bigint;
}

export class UrlPool {
  readonly network: Network;
  readonly urls: string[];
  private readonly state = new Map<string, UrlState>();
  private readonly retryCount: number;
  private readonly retryDelayMs: number;
  private readonly observer: NodeObserver | undefined;
  private headsAt = 0;

  constructor(opts: UrlPoolOptions) {
    if (opts.urls.length === 0) throw new Error(`${opts.network}: no node URL`);
    this.network = opts.network;
    this.urls = opts.urls;
    for (const u of opts.urls) this.state.set(u, { penaltyUntil: 0, refused: new Set(), excluded: false, lag: 0n });
    this.retryCount = opts.retryCount ?? 3;
    this.retryDelayMs = opts.retryDelayMs ?? 250;
    this.observer = opts.observer;
  }

  private of(url: string): UrlState {
    const s = this.state.get(url);
    if (!s) throw new Error(`${url} is not a URL of ${this.network}`);
    return s;
  }

  /** The URL rate-limited us: no call to it for `ms`. */
  penalize(url: string, ms: number, provider: string): void {
    this.of(url).penaltyUntil = Date.now() + ms;
    this.observer?.penalty(this.network, url, ms, provider);
  }

  /** The URL does not serve these methods (said once to the operator as `reason`). */
  refuse(url: string, methods: readonly string[], reason: string, detail: string): void {
    const s = this.of(url);
    const fresh = methods.filter((m) => !s.refused.has(m));
    if (fresh.length === 0) return;
    for (const m of fresh) s.refused.add(m);
    this.observer?.unusable(this.network, url, reason, detail);
  }

  refuses(url: string, method: string): boolean {
    return this.of(url).refused.has(method);
  }

  /** The methods (or paths) the URL does not serve. */
  refused(url: string): string[] {
    return [...this.of(url).refused];
  }

  /** Takes a URL out of the pool for good (a node of another chain): no call goes to it. */
  exclude(url: string, reason: string, detail: string): void {
    const s = this.of(url);
    if (s.excluded) return;
    s.excluded = true;
    this.observer?.unusable(this.network, url, reason, detail);
  }

  /** The URLs that may take `method` at all (not excluded, not refusing it), in configuration order. */
  serving(method: string): string[] {
    return this.urls.filter((u) => !this.of(u).excluded && !this.of(u).refused.has(method));
  }

  penaltyLeft(url: string): number {
    return Math.max(0, this.of(url).penaltyUntil - Date.now());
  }

  lagOf(url: string): number {
    return Number(this.of(url).lag);
  }

  /** The serving URLs out of their penalty now: those near the best head first, in configuration order, the laggards after them. */
  private usableNow(serving: string[]): string[] {
    const t = Date.now();
    const free = serving.filter((u) => this.of(u).penaltyUntil <= t);
    const behind = (u: string) => this.of(u).lag > DEMOTE_AFTER_BLOCKS;
    return [...free.filter((u) => !behind(u)), ...free.filter(behind)];
  }

  /**
   * `attempt` on the best usable URL, then the next; round after round with
   * backoff. A ChainUnavailableError moves on to the next URL; anything else
   * is the node's own answer and ends the call. `noneServe` is the error when
   * no URL serves the method at all.
   */
  async run<T>(method: string, attempt: (url: string) => Promise<T>, noneServe: () => ChainUnavailableError): Promise<T> {
    let last: ChainUnavailableError | null = null;
    for (let round = 0; round <= this.retryCount; round++) {
      if (round > 0) await sleep(this.retryDelayMs * 2 ** (round - 1));
      const serving = this.serving(method);
      if (serving.length === 0) throw noneServe();
      let usable = this.usableNow(serving);
      // Until a penalty ends: a timer may fire before Date.now() reaches its end (Node's timers run on the
      // event loop's cached clock), and a round that found no URL free would be a retry spent on nothing.
      const waitAtMost = Date.now() + MAX_PENALTY_WAIT_MS;
      while (usable.length === 0) {
        const until = Math.min(...serving.map((u) => this.of(u).penaltyUntil));
        if (until > waitAtMost) {
          throw new ChainUnavailableError(this.network, 'rate_limited', `${method}: every URL is rate-limited for ${Math.ceil((until - Date.now()) / 1000)} s more`);
        }
        await sleep(until - Date.now() + 1);
        usable = this.usableNow(serving);
      }
      for (const url of usable) {
        try {
          return await attempt(url);
        } catch (err) {
          if (!(err instanceof ChainUnavailableError)) throw err;
          last = err;
        }
      }
    }
    throw last ?? new ChainUnavailableError(this.network, 'unreachable', `${method}: no URL answered`);
  }

  /** Now and then (two URLs or more), every URL's head against the best: a laggard is asked last, and the operator told. */
  async heads(headOf: (url: string) => Promise<bigint>): Promise<void> {
    if (this.urls.length < 2 || Date.now() - this.headsAt < HEADS_EVERY_MS) return;
    this.headsAt = Date.now();
    const live = this.urls.filter((u) => !this.of(u).excluded);
    const heads = await Promise.all(live.map((u) => headOf(u).catch(() => null)));
    const best = heads.reduce<bigint | null>((m, h) => (h !== null && (m === null || h > m) ? h : m), null);
    if (best === null) return;
    live.forEach((u, i) => {
      const s = this.of(u);
      const lag = heads[i] === null ? best : best - heads[i]!;
      const was = s.lag > DEMOTE_AFTER_BLOCKS;
      s.lag = lag;
      this.observer?.lag(this.network, u, Number(lag));
      if (lag > DEMOTE_AFTER_BLOCKS && !was) this.observer?.unusable(this.network, u, 'lagging', `${lag} blocks behind the best URL`);
      if (lag <= DEMOTE_AFTER_BLOCKS && was) this.observer?.usable(this.network, u, 'lagging');
    });
  }
}

/**
 * A probe's call, patient with one passing failure (a 429, a dropped
 * connection, a backend behind): tried again after 0.5, 1 and 2 s before the
 * URL is reported as it answered (ops chains check must not flap on one 429).
 */
export async function patiently<T>(call: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await call();
    } catch (err) {
      const passing = err instanceof ChainUnavailableError && err.kind !== 'bad_response' && err.kind !== 'method_not_served';
      if (!passing || i >= 3) throw err;
      await sleep(500 * 2 ** i);
    }
  }
}
