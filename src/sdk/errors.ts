// Errors the client raises: one class per kind of failure, each carrying the
// API's stable `code` (docs/api.md#errors) so callers branch on code, never on text.

/** Every code the API answers with (docs/errors.md), grouped by HTTP status. */
export const API_ERROR_CODES = [
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'IDEMPOTENCY_KEY_INVALID',
  'INVALID_DESTINATION_ADDRESS',
  'FAUCET_INVALID_ASSET',
  'FAUCET_INVALID_AMOUNT',
  'FAUCET_NO_ASSETS',
  'MISSING_AUTH_HEADERS',
  'TIMESTAMP_EXPIRED',
  'INVALID_SIGNATURE',
  'REPLAY_DETECTED',
  'INVALID_API_KEY',
  'API_KEY_EXPIRED',
  'UNAUTHORIZED',
  'WORKSPACE_NOT_FOUND',
  'INSUFFICIENT_SCOPE',
  'IP_NOT_ALLOWED',
  'FORBIDDEN',
  'WORKSPACE_INACTIVE',
  'FAUCET_ONLY_SANDBOX',
  'FAUCET_NOT_SANDBOX',
  'FEATURE_NOT_AVAILABLE',
  'SYSTEM_WORKSPACE_PROTECTED',
  'NOT_FOUND',
  'CONFLICT',
  'IDEMPOTENCY_CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNPROCESSABLE',
  'IDEMPOTENCY_MISMATCH',
  'INSUFFICIENT_BALANCE',
  'CHAIN_NOT_ENABLED',
  'DESTINATION_IS_INTERNAL',
  'WITHDRAWALS_FROZEN',
  'WITHDRAWAL_NOT_CANCELLABLE',
  'AMOUNT_TOO_SMALL',
  'WITHDRAWAL_POLICY_VIOLATION',
  'WEBHOOK_LIMIT_REACHED',
  'FAUCET_ADDRESS_NOT_FOUND',
  'FAUCET_AMOUNT_OVER_CAP',
  'FAUCET_TOO_MANY_ITEMS',
  'FAUCET_DUPLICATE_ASSET',
  'FAUCET_NATIVE_REQUIRES_DEPOSIT',
  'FAUCET_NATIVE_BUDGET_EXCEEDED',
  'FAUCET_RATE_LIMITED',
  'FAUCET_DISPENSER_EXHAUSTED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'DATABASE_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/**
 * The SDK's own codes, for failures without an API answer: no response
 * (CONNECTION_ERROR, TIMEOUT), an answer that is not the API's (UNKNOWN_ERROR,
 * INVALID_RESPONSE), or a wait that ended without the status asked for.
 */
export type ClientErrorCode = 'CONNECTION_ERROR' | 'TIMEOUT' | 'UNKNOWN_ERROR' | 'INVALID_RESPONSE' | 'WAIT_TIMEOUT' | 'UNEXPECTED_STATUS';

/** Codes added to the API later reach older clients as plain strings (docs/api.md#compatibility). */
export type ErrorCode = ApiErrorCode | ClientErrorCode | (string & {});

export interface WalletApiErrorInit {
  /** HTTP status, or null when no HTTP response arrived. */
  status: number | null;
  code: ErrorCode;
  message: string;
  requestId?: string | null;
  details?: unknown;
  headers?: Headers | null;
  idempotencyKey?: string | null;
  cause?: unknown;
}

export class WalletApiError extends Error {
  readonly status: number | null;
  /** The API's stable code (INSUFFICIENT_BALANCE, ...) or one of the SDK's own for failures without a response. */
  readonly code: ErrorCode;
  /** X-Request-Id of the response: quote it to support. */
  readonly requestId: string | null;
  /** Extra structure some codes carry, e.g. VALIDATION_ERROR's `[{ path, message }]`. */
  readonly details: unknown;
  readonly headers: Headers | null;
  /** The Idempotency-Key sent, so a caller may retry the same create later by hand. */
  readonly idempotencyKey: string | null;

  constructor(init: WalletApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.details = init.details;
    this.headers = init.headers ?? null;
    this.idempotencyKey = init.idempotencyKey ?? null;
  }
}

/**
 * 400, 413 and 415: the request itself is malformed (VALIDATION_ERROR, INVALID_JSON, PAYLOAD_TOO_LARGE, ...);
 * also 408, 417 and 431, which the HTTP server answers before any route runs.
 */
export class InvalidRequestError extends WalletApiError {}
/** 401: missing or bad signature, unknown, revoked or expired key, replay. */
export class AuthenticationError extends WalletApiError {}
/** 403: missing scope, source IP outside the allowlist, inactive workspace, ... */
export class PermissionError extends WalletApiError {}
/** 404: unknown resource, or one of another workspace or network. */
export class NotFoundError extends WalletApiError {}
/** 409: CONFLICT (duplicate) or IDEMPOTENCY_CONFLICT (same key still in flight). */
export class ConflictError extends WalletApiError {}
/** 422: a business rule refused the request (INSUFFICIENT_BALANCE, IDEMPOTENCY_MISMATCH, ...). */
export class UnprocessableError extends WalletApiError {}

/** 429: rate limited; `retryAfterSeconds` says when to come back. */
export class RateLimitError extends WalletApiError {
  readonly retryAfterSeconds: number | null;
  constructor(init: WalletApiErrorInit & { retryAfterSeconds: number | null }) {
    super(init);
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/**
 * 5xx: the service failed; creates sent with an Idempotency-Key are safe to
 * retry with the same key. A 503 SERVICE_UNAVAILABLE says when in `retryAfterSeconds`.
 */
export class ApiServerError extends WalletApiError {
  readonly retryAfterSeconds: number | null;
  constructor(init: WalletApiErrorInit & { retryAfterSeconds?: number | null }) {
    super(init);
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
  }
}

/**
 * No HTTP response: connection refused or reset, DNS failure, TLS error.
 * Whether the server acted is unknown, which is why creates carry an Idempotency-Key.
 */
export class ApiConnectionError extends WalletApiError {}
/** The attempt exceeded `timeoutMs`; as unknown an outcome as any other connection failure. */
export class ApiTimeoutError extends ApiConnectionError {}

/** What a wait (client.waitFor) was after, and what it saw last. */
export interface WaitErrorInit<R> {
  message: string;
  /** The status asked for. */
  wanted: string;
  /** The resource as last read; null when no read succeeded. */
  resource: R | null;
  cause?: unknown;
}

/** code WAIT_TIMEOUT: `timeoutMs` passed before the resource reached the status; it may still get there. */
export class WaitTimeoutError<R = unknown> extends WalletApiError {
  readonly wanted: string;
  readonly resource: R | null;
  constructor(init: WaitErrorInit<R>) {
    super({ status: null, code: 'WAIT_TIMEOUT', message: init.message, cause: init.cause });
    this.wanted = init.wanted;
    this.resource = init.resource;
  }
}

/** code UNEXPECTED_STATUS: the resource reached a final status other than the one asked for (`resource.status`); it never will. */
export class UnexpectedStatusError<R = unknown> extends WalletApiError {
  readonly wanted: string;
  readonly resource: R;
  /** The final status it reached instead. */
  readonly reached: string;
  constructor(init: WaitErrorInit<R> & { resource: R; reached: string }) {
    super({ status: null, code: 'UNEXPECTED_STATUS', message: init.message });
    this.wanted = init.wanted;
    this.resource = init.resource;
    this.reached = init.reached;
  }
}

/** Parses Retry-After: delta seconds, or an HTTP date. */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number.parseInt(value.trim(), 10);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

interface ErrorBody {
  error?: unknown;
  code?: unknown;
  details?: unknown;
}

/** The error for one non-2xx response; `body` is the parsed JSON or null when it was not JSON. */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Headers,
  idempotencyKey: string | null,
): WalletApiError {
  const b: ErrorBody = body !== null && typeof body === 'object' ? (body as ErrorBody) : {};
  const init: WalletApiErrorInit = {
    status,
    // A proxy in front of the service may answer without the API's error body (docs/api.md#errors).
    code: typeof b.code === 'string' ? b.code : 'UNKNOWN_ERROR',
    message: typeof b.error === 'string' ? b.error : `HTTP ${status}`,
    requestId: headers.get('x-request-id'),
    details: b.details,
    headers,
    idempotencyKey,
  };
  switch (status) {
    case 400:
    case 408:
    case 413:
    case 415:
    case 417:
    case 431:
      return new InvalidRequestError(init);
    case 401:
      return new AuthenticationError(init);
    case 403:
      return new PermissionError(init);
    case 404:
      return new NotFoundError(init);
    case 409:
      return new ConflictError(init);
    case 422:
      return new UnprocessableError(init);
    case 429:
      return new RateLimitError({ ...init, retryAfterSeconds: parseRetryAfter(headers.get('retry-after')) });
    default:
      return status >= 500
        ? new ApiServerError({ ...init, retryAfterSeconds: parseRetryAfter(headers.get('retry-after')) })
        : new WalletApiError(init);
  }
}
