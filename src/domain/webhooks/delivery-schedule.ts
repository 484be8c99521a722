// When a webhook delivery is attempted (docs/api.md#deliveries): five attempts
// in all, the first at once, then one, two, four and eight minutes after the
// previous one failed (earliest times: a worker picks them up when due). A
// 2xx delivers; after the fifth failure the delivery is FAILED for good. The
// same delivery id is used on every attempt. Pure: the caller passes the time.

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export const MAX_ATTEMPTS = 5;
/** Waits after attempts 1 to 4 failed, in milliseconds. */
export const RETRY_DELAYS_MS: readonly number[] = [60_000, 120_000, 240_000, 480_000];
/** A receiver has this long to answer an attempt. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface DeliveryState {
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
}

/** A new delivery: due at once. */
export const newDelivery = (now: Date): DeliveryState => ({ status: 'PENDING', attempts: 0, nextAttemptAt: now });

/** The state after one more attempt ended at `at`: delivered, due again later, or failed for good. */
export function afterAttempt(state: DeliveryState, delivered: boolean, at: Date): DeliveryState {
  if (state.status !== 'PENDING') throw new Error(`a ${state.status} delivery takes no more scheduled attempts`);
  const attempts = state.attempts + 1;
  if (delivered) return { status: 'DELIVERED', attempts, nextAttemptAt: null };
  if (attempts >= MAX_ATTEMPTS) return { status: 'FAILED', attempts, nextAttemptAt: null };
  return { status: 'PENDING', attempts, nextAttemptAt: new Date(at.getTime() + RETRY_DELAYS_MS[attempts - 1]!) };
}

/**
 * The body of every delivery: `{ event, created_at, data }`, in that order,
 * serialised once; the signature covers exactly these bytes.
 */
export const envelope = (event: string, createdAt: Date, data: Record<string, unknown>): string =>
  JSON.stringify({ event, created_at: createdAt.toISOString(), data });
