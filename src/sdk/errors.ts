// Errors the client raises: one class per kind of failure, each carrying the
// API's stable `code` (docs/api.md#errors) so callers branch on code, never on text.

export interface WalletApiErrorInit {
  /** HTTP status, or null when no HTTP response arrived. */
  status: number | null;
  code: string;
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
  readonly code: string;
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

/** 400, 413 and 415: the request itself is malformed (VALIDATION_ERROR, INVALID_JSON, PAYLOAD_TOO_LARGE, ...). */
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

/** 5xx: the service failed; creates sent with an Idempotency-Key are safe to retry with the same key. */
export class ApiServerError extends WalletApiError {}

/**
 * No HTTP response: connection refused or reset, DNS failure, TLS error.
 * Whether the server acted is unknown, which is why creates carry an Idempotency-Key.
 */
export class ApiConnectionError extends WalletApiError {}
/** The attempt exceeded `timeoutMs`; as unknown an outcome as any other connection failure. */
export class ApiTimeoutError extends ApiConnectionError {}

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
    case 413:
    case 415:
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
      return status >= 500 ? new ApiServerError(init) : new WalletApiError(init);
  }
}
