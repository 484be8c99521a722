// Verifying webhook deliveries (docs/api.md#webhooks): the receiver's half of the
// endpoint secret, and signWebhook, its inverse, for receivers' own tests.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DateTimeString } from './types.js';

/** Every event the service sends (docs/api.md#events), e.g. to subscribe an endpoint to all of them. */
export const WEBHOOK_EVENTS = [
  'DEPOSIT_DETECTED',
  'DEPOSIT_CONFIRMED',
  'DEPOSIT_SWEPT',
  'DEPOSIT_FLAGGED',
  'DEPOSIT_REJECTED',
  'WITHDRAWAL_PROCESSING',
  'WITHDRAWAL_CONFIRMED',
  'WITHDRAWAL_FAILED',
  'WITHDRAWAL_CANCELLED',
  'WITHDRAWAL_HELD',
  'WITHDRAWAL_PENDING_APPROVAL',
  'BENEFICIARY_ADDED',
  'BENEFICIARY_REMOVED',
  'WITHDRAWAL_POLICY_CHANGED',
  'COMMITMENT_ADJUSTMENT_EMITTED',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_TOLERANCE_SECONDS = 300;
const PREFIX = 'sha256=';
const HEX_SIGNATURE = /^[0-9a-f]{64}$/;

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookInput {
  /** The body exactly as received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  headers: WebhookHeaders;
  /** The endpoint secret; several while rotating secrets, any of which may match. */
  secret: string | readonly string[];
  toleranceSeconds?: number;
  now?: Date;
}

export interface VerifiedWebhook<TData = Record<string, unknown>> {
  // Unknown names are let through: events are added over time (docs/api.md#compatibility).
  event: WebhookEventName | (string & {});
  created_at: DateTimeString;
  data: TData;
  /** X-Service-Delivery: the same on every attempt of one delivery; deduplicate on it. Null if absent. */
  deliveryId: string | null;
}

export type WebhookVerificationReason =
  | 'MISSING_TIMESTAMP'
  | 'INVALID_TIMESTAMP'
  | 'MISSING_SIGNATURE'
  | 'MALFORMED_SIGNATURE'
  | 'SIGNATURE_MISMATCH'
  | 'TIMESTAMP_OUT_OF_TOLERANCE'
  | 'INVALID_PAYLOAD';

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

const bytesOf = (body: string | Uint8Array): Buffer =>
  typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);

function hmacOf(secret: string, timestamp: string, rawBody: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(bytesOf(rawBody)).digest();
}

/** The X-Service-Signature value a delivery of `rawBody` signed at `timestamp` carries. */
export function signWebhook(input: { secret: string; timestamp: number | string; rawBody: string | Uint8Array }): string {
  return PREFIX + hmacOf(input.secret, String(input.timestamp), input.rawBody).toString('hex');
}

/** The hex digest of a well-formed `sha256=<64 hex>` header value, else null. */
function digestOf(value: string | undefined): Buffer | null {
  if (value === undefined || !value.startsWith(PREFIX)) return null;
  const hex = value.slice(PREFIX.length).trim();
  return HEX_SIGNATURE.test(hex) ? Buffer.from(hex, 'hex') : null;
}

/**
 * Checks a delivery and returns its envelope, or throws WebhookVerificationError.
 * The signature is checked against the raw bytes before anything is parsed;
 * X-Service-Signature-Previous is accepted too, so a receiver that still holds
 * only the old secret keeps working through a rotation.
 */
export function verifyWebhook<TData = Record<string, unknown>>(input: VerifyWebhookInput): VerifiedWebhook<TData> {
  const secrets = typeof input.secret === 'string' ? [input.secret] : [...input.secret];
  if (secrets.length === 0 || secrets.some((s) => s === '')) throw new TypeError('a non-empty webhook secret is required');

  const timestamp = header(input.headers, 'X-Service-Timestamp');
  if (timestamp === undefined) throw new WebhookVerificationError('MISSING_TIMESTAMP', 'X-Service-Timestamp is missing');
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError('INVALID_TIMESTAMP', 'X-Service-Timestamp is not Unix seconds');
  }

  const sent = [header(input.headers, 'X-Service-Signature'), header(input.headers, 'X-Service-Signature-Previous')];
  if (sent.every((v) => v === undefined)) {
    throw new WebhookVerificationError('MISSING_SIGNATURE', 'X-Service-Signature is missing');
  }
  const digests = sent.map(digestOf).filter((d): d is Buffer => d !== null);
  if (digests.length === 0) {
    throw new WebhookVerificationError('MALFORMED_SIGNATURE', 'The signature header is not of the form sha256=<64 hex>');
  }
  const expected = secrets.map((s) => hmacOf(s, timestamp, input.rawBody));
  const matches = digests.some((d) => expected.some((e) => e.length === d.length && timingSafeEqual(e, d)));
  if (!matches) throw new WebhookVerificationError('SIGNATURE_MISMATCH', 'No signature matches the body and the secret');

  // Checked after the signature so a stale delivery is told apart from a forged one.
  const tolerance = input.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(
      'TIMESTAMP_OUT_OF_TOLERANCE',
      `The delivery was signed ${nowSeconds - Number(timestamp)} s ago, outside the ${tolerance} s tolerance`,
    );
  }

  let payload: unknown;
  try {
    payload = JSON.parse(bytesOf(input.rawBody).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'The body is not JSON');
  }
  const p = payload as { event?: unknown; created_at?: unknown; data?: unknown } | null;
  if (p === null || typeof p !== 'object' || typeof p.event !== 'string' || typeof p.created_at !== 'string' || typeof p.data !== 'object' || p.data === null) {
    throw new WebhookVerificationError('INVALID_PAYLOAD', 'The body is not an event envelope { event, created_at, data }');
  }
  return {
    event: p.event,
    created_at: p.created_at,
    data: p.data as TData,
    deliveryId: header(input.headers, 'X-Service-Delivery') ?? null,
  };
}
