// When a webhook delivery is attempted (docs/api.md#deliveries): five attempts
// in all, the first at once, then one, two, four and eight minutes after the
// previous one failed (earliest times: a worker picks them up when due). A
// 2xx delivers; after the fifth failure the delivery is FAILED for good. The
// same delivery id is used on every attempt. A redelivery asked for by the
// integrator grants exactly one more attempt. Pure: the caller passes the time.
import { DomainError } from '../errors.js';

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export const MAX_ATTEMPTS = 5;
/** Waits after attempts 1 to 4 failed, in milliseconds. */
export const RETRY_DELAYS_MS: readonly number[] = [60_000, 120_000, 240_000, 480_000];
/** A receiver has this long to answer an attempt. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Delivered and failed records are kept this long; PENDING ones for ever. */
export const DELIVERY_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
/** Permanently failed deliveries of one endpoint within the window that make it "dead". */
export const DEAD_ENDPOINT_FAILURES = 5;
/** The window of those failures, and the least time between two notices for one endpoint. */
export const DEAD_ENDPOINT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

export interface DeliveryState {
  status: DeliveryStatus;
  attempts: number;
  /** Attempts this delivery may take in all: five, plus one per redelivery. */
  maxAttempts: number;
  nextAttemptAt: Date | null;
}

/** A new delivery: due at once. */
export const newDelivery = (now: Date): DeliveryState => ({ status: 'PENDING', attempts: 0, maxAttempts: MAX_ATTEMPTS, nextAttemptAt: now });

/** The state after one more attempt ended at `at`: delivered, due again later, or failed for good. */
export function afterAttempt(state: DeliveryState, delivered: boolean, at: Date): DeliveryState {
  if (state.status !== 'PENDING') throw new Error(`a ${state.status} delivery takes no more scheduled attempts`);
  const attempts = state.attempts + 1;
  const { maxAttempts } = state;
  if (delivered) return { status: 'DELIVERED', attempts, maxAttempts, nextAttemptAt: null };
  if (attempts >= maxAttempts) return { status: 'FAILED', attempts, maxAttempts, nextAttemptAt: null };
  const delay = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1]!;
  return { status: 'PENDING', attempts, maxAttempts, nextAttemptAt: new Date(at.getTime() + delay) };
}

/**
 * One more attempt of a finished delivery, due at once, with the same id.
 * A PENDING delivery is still being retried: CONFLICT.
 */
export function redeliver(state: DeliveryState, now: Date): DeliveryState {
  if (state.status === 'PENDING') {
    throw new DomainError('CONFLICT', 'This delivery is still PENDING; it is retried on its schedule');
  }
  return { status: 'PENDING', attempts: state.attempts, maxAttempts: state.attempts + 1, nextAttemptAt: now };
}

/**
 * The body of every delivery: `{ event, created_at, data }`, in that order,
 * serialised once; the signature covers exactly these bytes.
 */
export const envelope = (event: string, createdAt: Date, data: object): string =>
  JSON.stringify({ event, created_at: createdAt.toISOString(), data });

/** What signs a delivery: the current secret, and the previous one while it is still valid. */
export interface DeliverySecrets {
  current: string;
  previous: string | null;
  previousExpiresAt: Date | null;
}

/**
 * The headers of one attempt (docs/api.md#deliveries): the signature is
 * HMAC-SHA256 over `{timestamp}.{body}`, hex, behind `sha256=`; during the 24
 * hours after a rotation the previous secret signs too.
 */
export function deliveryHeaders(
  hmacHex: (secret: string, message: string) => string,
  d: { id: string; event: string; body: string; secrets: DeliverySecrets; now: Date },
): Record<string, string> {
  const timestamp = String(Math.floor(d.now.getTime() / 1000));
  const message = `${timestamp}.${d.body}`;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-service-event': d.event,
    'x-service-timestamp': timestamp,
    'x-service-signature': `sha256=${hmacHex(d.secrets.current, message)}`,
    'x-service-delivery': d.id,
  };
  const { previous, previousExpiresAt } = d.secrets;
  if (previous && previousExpiresAt && previousExpiresAt.getTime() > d.now.getTime()) {
    headers['x-service-signature-previous'] = `sha256=${hmacHex(previous, message)}`;
  }
  return headers;
}
