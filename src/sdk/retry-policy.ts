// Which failed attempts the client may repeat and how long it waits first
// (stripe-node's rules): only what cannot run an operation twice.

export interface RetrySettings {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A longer Retry-After is handed to the caller as a RateLimitError instead of waited out. */
  maxRetryAfterSeconds: number;
}

/** The request, as far as repeating it is concerned. */
export interface RetriedRequest {
  method: string;
  /** Sent with an Idempotency-Key, on which the server deduplicates. */
  hasIdempotencyKey: boolean;
  /**
   * Changes nothing on the server whatever its method (HTTP's "safe"), e.g.
   * POST /v2/fees/quote: repeatable without an Idempotency-Key.
   */
  safe?: boolean;
}

export type AttemptOutcome =
  | { kind: 'connection' }
  | { kind: 'response'; status: number; code: string; retryAfterSeconds: number | null };

// By HTTP semantics repeating these changes nothing more than the first did.
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * A repeat can only act once: the method is idempotent, the server
 * deduplicates on the key, or the request acts on nothing at all.
 */
export const isSafeToRepeat = (request: RetriedRequest): boolean =>
  request.hasIdempotencyKey || request.safe === true || IDEMPOTENT_METHODS.has(request.method.toUpperCase());

function isRetryable(request: RetriedRequest, outcome: AttemptOutcome): boolean {
  if (outcome.kind === 'connection') return isSafeToRepeat(request);
  const { status, code } = outcome;
  // Refused before anything ran (rate limiter, replay guard): safe for any method.
  if (status === 429) return true;
  if (status === 401 && code === 'REPLAY_DETECTED') return true;
  // The first request with this key is still running; a later attempt gets its replay.
  if (status === 409 && code === 'IDEMPOTENCY_CONFLICT') return request.hasIdempotencyKey;
  if (status >= 500) return isSafeToRepeat(request);
  return false;
}

/**
 * The wait before retry number `retriesDone + 1`, or null when the failure
 * must reach the caller. Exponential from baseDelayMs, capped at maxDelayMs,
 * with jitter (50–100 %) so many clients do not retry in step; never shorter
 * than the server's Retry-After (429, or a 5xx such as 503
 * SERVICE_UNAVAILABLE), and a Retry-After beyond maxRetryAfterSeconds is not
 * waited out: the failure goes to the caller.
 */
export function nextRetryDelayMs(
  request: RetriedRequest,
  outcome: AttemptOutcome,
  retriesDone: number,
  settings: RetrySettings,
  random: () => number = Math.random,
): number | null {
  if (retriesDone >= settings.maxRetries) return null;
  if (!isRetryable(request, outcome)) return null;
  const exponential = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** retriesDone);
  const jittered = exponential * (0.5 + random() / 2);
  const retryAfter = outcome.kind === 'response' ? outcome.retryAfterSeconds : null;
  if (retryAfter === null) return jittered;
  if (retryAfter > settings.maxRetryAfterSeconds) return null;
  return Math.max(jittered, retryAfter * 1000);
}
