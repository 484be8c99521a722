// HTTP side of idempotency (docs/api.md#idempotency): reads and checks the
// Idempotency-Key header, runs the create through RunIdempotently and answers
// a replay with the original status and body plus `Idempotent-Replay: true`.
import type { Request, Response } from 'express';
import type { RunIdempotently } from '../../application/idempotency/run-idempotently.js';
import { DomainError, type ErrorCode } from '../../domain/errors.js';
import { IDEMPOTENCY_KEY_PATTERN, type StoredResponse } from '../../domain/idempotency/idempotency.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSETS, type Asset } from '../../domain/money/networks.js';
import { principalOf } from './authenticate.js';
import { ERROR_STATUS } from './error-status.js';
import { requiredScopeOf } from './route.js';

/**
 * Remembered: business rejections of an operation that ran (403, 404, 409,
 * 422). Not remembered: a request refused before anything ran (400: fix it and
 * retry with the same key, as with Stripe), answers that say nothing
 * about the request itself (conflicts of the key, rate limits, 5xx), and the
 * faucet's refusals that say "later" (its hourly rate, a rolling budget, a
 * token deposit still to come, a dispenser to be refilled): the same request
 * with the same key may pass once the window moves.
 */
const NOT_REMEMBERED = new Set<ErrorCode>([
  'IDEMPOTENCY_CONFLICT',
  'IDEMPOTENCY_MISMATCH',
  'RATE_LIMITED',
  'DATABASE_ERROR',
  'INTERNAL_ERROR',
  'FAUCET_RATE_LIMITED',
  'FAUCET_NATIVE_BUDGET_EXCEEDED',
  'FAUCET_NATIVE_REQUIRES_DEPOSIT',
  'FAUCET_DISPENSER_EXHAUSTED',
]);

function remembered(err: DomainError): StoredResponse | null {
  const status = ERROR_STATUS[err.code];
  if (status >= 500 || status === 400 || NOT_REMEMBERED.has(err.code)) return null;
  const body: Record<string, unknown> = { error: err.message, code: err.code };
  if (err.details !== undefined) body.details = err.details;
  return { status, body: JSON.stringify(body) };
}

/**
 * The request as its meaning, for the key's fingerprint: every amount named
 * with its asset (`asset` or a faucet item's `symbol`) in the asset's one
 * spelling, since "5" and "5.000000" are the same amount (docs/api.md#amounts).
 * Anything that does not parse is left as sent (the request then fails on it).
 */
export function canonicalAmounts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalAmounts);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = canonicalAmounts(v);
  const asset = typeof out.asset === 'string' ? out.asset : typeof out.symbol === 'string' ? out.symbol : null;
  if (asset !== null && typeof out.amount === 'string' && (ASSETS as readonly string[]).includes(asset)) {
    try {
      out.amount = Amount.parse(out.amount, asset as Asset).toString();
    } catch {
      /* not an amount: fingerprinted as sent */
    }
  }
  return out;
}

/** What a create handler answers; serialised once, and those bytes are sent and stored. */
export interface HandlerResponse {
  status: number;
  body: unknown;
}

const send = (res: Response, status: number, json: string): void => {
  res.status(status).type('application/json').send(json);
};

export interface IdempotentOptions {
  /** Status of a replayed success (a withdrawal replay answers 200, docs/api.md#withdrawals). */
  replayStatus?: number;
  /**
   * A key the request may carry elsewhere, used when the header is absent
   * (the deprecated body field `idempotency_key` of POST /withdrawals: at most
   * 128 characters). The header takes precedence.
   */
  fallbackKey?: (req: Request) => unknown;
}

/** The longest deprecated body key (docs/api.md#idempotency). */
const FALLBACK_KEY_MAX = 128;

/** The key a create runs under: the header (checked against its pattern), else the fallback (at most 128 characters), else none. */
export function idempotencyKeyOf(req: Request, opts: IdempotentOptions = {}): string | undefined {
  const header = req.get('Idempotency-Key');
  if (header !== undefined) {
    if (!IDEMPOTENCY_KEY_PATTERN.test(header)) {
      throw new DomainError('IDEMPOTENCY_KEY_INVALID', 'Idempotency-Key must be 1 to 255 characters from A-Z a-z 0-9 _ -');
    }
    return header;
  }
  const fallback = opts.fallbackKey?.(req);
  if (fallback === undefined || fallback === null) return undefined;
  if (typeof fallback !== 'string' || fallback.length === 0 || fallback.length > FALLBACK_KEY_MAX) {
    throw new DomainError('VALIDATION_ERROR', `idempotency_key must be a string of 1 to ${FALLBACK_KEY_MAX} characters`, [
      { path: 'idempotency_key', message: `must be a string of 1 to ${FALLBACK_KEY_MAX} characters` },
    ]);
  }
  return fallback;
}

/**
 * Wraps an idempotent create. The scope its route declares is checked again
 * by RunIdempotently before it looks at the key, so a replay never answers a
 * key that could not have made the request.
 */
export function idempotent(
  runner: RunIdempotently,
  handler: (req: Request, res: Response) => Promise<HandlerResponse>,
  opts: IdempotentOptions = {},
): (req: Request, res: Response) => Promise<void> {
  return async (req, res) => {
    const key = idempotencyKeyOf(req, opts);
    if (key === undefined) {
      const r = await handler(req, res);
      res.status(r.status).json(r.body);
      return;
    }
    const call = {
      principal: principalOf(res),
      requiredScope: requiredScopeOf(res),
      method: req.method,
      // The path as routed, not as spelled: /v2/customers/ and an absolute-form
      // target reach the same create and must share its keys.
      path: `${req.baseUrl}${req.path}`.replace(/\/+$/, ''),
      key,
    };
    const operation = async (): Promise<StoredResponse> => {
      const r = await handler(req, res);
      return { status: r.status, body: JSON.stringify(r.body) };
    };
    const { response, replayed } = await runner.execute(call, canonicalAmounts(req.body ?? null), operation, remembered);
    if (replayed) {
      res.setHeader('Idempotent-Replay', 'true');
      const success = response.status >= 200 && response.status < 300;
      send(res, success && opts.replayStatus ? opts.replayStatus : response.status, response.body);
      return;
    }
    send(res, response.status, response.body);
  };
}
