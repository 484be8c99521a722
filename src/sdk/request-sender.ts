// The engine under every endpoint method: builds the exact request target,
// serialises the body once, signs those bytes (docs/api.md#authentication),
// sends them, retries what is safe and turns error responses into typed errors.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiConnectionError,
  ApiTimeoutError,
  WalletApiError,
  errorFromResponse,
  parseRetryAfter,
} from './errors.js';
import { nextRetryDelayMs, type AttemptOutcome, type RetriedRequest, type RetrySettings } from './retry-policy.js';
import { authHeaders } from './signing.js';
import type { ResponseInfo, WithResponse } from './types.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  /** Serialised with URLSearchParams in the given order; undefined and null values are left out. */
  query?: Record<string, QueryValue>;
  /** Serialised to JSON once; those exact bytes are signed and sent. */
  body?: unknown;
  /** Sent as Idempotency-Key on every attempt; a POST is retried only when it has one, or is `safe`. */
  idempotencyKey?: string;
  /**
   * The request changes nothing on the server whatever its method (HTTP's
   * "safe"), like POST /v2/fees/quote: retried after a lost connection or a
   * 5xx as a GET is, without an Idempotency-Key. Only for pure reads.
   */
  safe?: boolean;
  /** Cancels the call, including any wait between retries; never retried. */
  signal?: AbortSignal;
}

export interface SenderConfig {
  baseUrl: string;
  keyId: string;
  secret: string;
  fetch: typeof fetch;
  timeoutMs: number;
  userAgent: string;
  retry: RetrySettings;
  /** Milliseconds since the epoch. */
  now: () => number;
}

type Attempt =
  | { ok: true; value: object; info: Omit<ResponseInfo, 'attempts'> }
  | { ok: false; error: WalletApiError; outcome: AttemptOutcome };

/**
 * Remembers the signatures sent during the current second. Two identical
 * requests signed in the same second carry the same signature, and the server
 * refuses the second as REPLAY_DETECTED: a retry of the attempt just made, or
 * two identical GETs issued together. Such a request waits for the next second.
 */
class SignatureLedger {
  private second = -1;
  private readonly used = new Set<string>();

  claim(second: number, signature: string): boolean {
    if (second > this.second) {
      this.second = second;
      this.used.clear();
    }
    if (this.used.has(signature)) return false;
    this.used.add(signature);
    return true;
  }
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** Waits, or rejects with the caller's own abort reason, as an aborted request does. */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (err) {
    throw signal?.aborted ? signal.reason : err;
  }
}

function describeFailure(err: unknown): string {
  // undici reports "fetch failed" and keeps the socket error in `cause`.
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}

export class RequestSender {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly ledger = new SignatureLedger();

  // A true private field: console.log(client) or a logger walking the object never shows the secret.
  readonly #config: SenderConfig;

  constructor(config: SenderConfig) {
    this.#config = config;
    const base = new URL(config.baseUrl);
    if (base.search || base.hash) throw new TypeError('baseUrl must not carry a query string or fragment');
    this.origin = base.origin;
    // The API's base URL as the sandbox prints it (…/v2) or without /v2: both mean the same API.
    this.basePath = base.pathname.replace(/\/+$/, '').replace(/\/v2$/, '');
  }

  async send<T extends object>(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<WithResponse<T>> {
    const url = this.urlFor(path, opts.query);
    // What the server sees as its request target, hence what is signed.
    const target = url.pathname + url.search;
    const body = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body), 'utf8');
    const idempotencyKey = opts.idempotencyKey ?? null;
    const retried: RetriedRequest = { method, hasIdempotencyKey: idempotencyKey !== null, safe: opts.safe === true };
    for (let attempt = 1; ; attempt++) {
      const result = await this.attempt(method, url, target, body, idempotencyKey, opts.signal);
      if (result.ok) {
        Object.defineProperty(result.value, 'lastResponse', {
          value: { ...result.info, attempts: attempt },
          enumerable: false,
        });
        return result.value as WithResponse<T>;
      }
      const delay = nextRetryDelayMs(retried, result.outcome, attempt - 1, this.#config.retry);
      if (delay === null) throw result.error;
      await pause(delay, opts.signal);
    }
  }

  private urlFor(path: string, query: RequestOptions['query']): URL {
    if (!path.startsWith('/') || path.startsWith('//')) throw new TypeError(`path must start with a single "/": ${path}`);
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) params.append(name, String(value));
    }
    const qs = params.toString();
    const target = qs === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${qs}`;
    const url = new URL(this.basePath + target, this.origin);
    if (url.origin !== this.origin) throw new TypeError(`path leaves the base URL: ${path}`);
    return url;
  }

  private async attempt(
    method: HttpMethod,
    url: URL,
    target: string,
    body: Buffer | undefined,
    idempotencyKey: string | null,
    callerSignal: AbortSignal | undefined,
  ): Promise<Attempt> {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': this.#config.userAgent,
      ...(await this.signFresh(method, target, body, callerSignal)),
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey !== null) headers['Idempotency-Key'] = idempotencyKey;

    const timeout = AbortSignal.timeout(this.#config.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      // A redirect is never followed: it would resend the signed request, body and all, to another host.
      res = await this.#config.fetch(url, { method, headers, body, signal, redirect: 'manual' });
      text = await res.text();
    } catch (err) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      const timedOut = timeout.aborted;
      const Kind = timedOut ? ApiTimeoutError : ApiConnectionError;
      const error = new Kind({
        status: null,
        code: timedOut ? 'TIMEOUT' : 'CONNECTION_ERROR',
        message: timedOut
          ? `No response from ${url.origin} within ${this.#config.timeoutMs} ms`
          : `Could not reach ${url.origin}: ${describeFailure(err)}`,
        idempotencyKey,
        cause: err,
      });
      return { ok: false, error, outcome: { kind: 'connection' } };
    }

    const parsed = text === '' ? {} : parseJson(text);
    if (!res.ok) {
      const error = errorFromResponse(res.status, parsed ?? null, res.headers, idempotencyKey);
      // 429 RATE_LIMITED and 503 SERVICE_UNAVAILABLE say when to come back; a retry never comes sooner.
      const retryAfterSeconds = res.status === 429 || res.status >= 500 ? parseRetryAfter(res.headers.get('retry-after')) : null;
      return { ok: false, error, outcome: { kind: 'response', status: res.status, code: error.code, retryAfterSeconds } };
    }
    if (parsed === null || typeof parsed !== 'object') {
      const error = new WalletApiError({
        status: res.status,
        code: 'INVALID_RESPONSE',
        message: 'The response body is not a JSON object',
        requestId: res.headers.get('x-request-id'),
        headers: res.headers,
        idempotencyKey,
      });
      return { ok: false, error, outcome: { kind: 'response', status: res.status, code: error.code, retryAfterSeconds: null } };
    }
    return {
      ok: true,
      value: parsed,
      info: {
        status: res.status,
        requestId: res.headers.get('x-request-id'),
        idempotentReplay: res.headers.get('idempotent-replay') === 'true',
        idempotencyKey,
        headers: res.headers,
      },
    };
  }

  /** Auth headers with the current second's timestamp and a signature not yet used in it. */
  private async signFresh(
    method: string,
    target: string,
    body: Buffer | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, string>> {
    for (;;) {
      const nowMs = this.#config.now();
      const second = Math.floor(nowMs / 1000);
      const headers = authHeaders(this.#config.keyId, {
        secret: this.#config.secret,
        method,
        path: target,
        body: body ?? '',
        timestamp: String(second),
      });
      if (this.ledger.claim(second, headers['X-Service-Signature']!)) return headers;
      await pause((second + 1) * 1000 - nowMs, signal);
    }
  }
}
