// Receiving a webhook delivery (docs/api.md#webhooks): what verifyWebhook accepts
// and the reason it gives for everything it refuses.
import { describe, expect, it } from 'vitest';
import { WebhookVerificationError, signWebhook, verifyWebhook, type VerifyWebhookInput } from '../../../src/sdk/webhooks.js';

const SECRET = 'whsec_current_9f3a';
const OLD_SECRET = 'whsec_previous_1b7c';
const NOW = new Date('2026-03-01T12:00:00Z');
const TS = Math.floor(NOW.getTime() / 1000);
const RAW =
  '{"event":"DEPOSIT_SWEPT","created_at":"2026-03-01T12:00:00.000Z","data":{"deposit_id":"d-1","amount":"1000000000000.123456789012345678"}}';

function delivery(overrides: Partial<VerifyWebhookInput> = {}, headers: Record<string, string | string[] | undefined> = {}): VerifyWebhookInput {
  return {
    rawBody: RAW,
    headers: {
      'x-service-event': 'DEPOSIT_SWEPT',
      'x-service-timestamp': String(TS),
      'x-service-signature': signWebhook({ secret: SECRET, timestamp: TS, rawBody: RAW }),
      'x-service-delivery': 'dlv_42',
      ...headers,
    },
    secret: SECRET,
    now: NOW,
    ...overrides,
  };
}

function reasonOf(input: VerifyWebhookInput): string {
  try {
    verifyWebhook(input);
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).reason;
  }
  throw new Error('verifyWebhook accepted the delivery');
}

describe('verifyWebhook', () => {
  it('accepts a valid delivery and returns the envelope, amounts still strings', () => {
    const out = verifyWebhook(delivery());
    expect(out).toEqual({
      event: 'DEPOSIT_SWEPT',
      created_at: '2026-03-01T12:00:00.000Z',
      data: { deposit_id: 'd-1', amount: '1000000000000.123456789012345678' },
      deliveryId: 'dlv_42',
    });
  });

  it('accepts the body as bytes and headers in any case, as arrays or as a Headers object', () => {
    const signature = signWebhook({ secret: SECRET, timestamp: TS, rawBody: RAW });
    expect(
      verifyWebhook({
        rawBody: new TextEncoder().encode(RAW),
        headers: { 'X-SERVICE-TIMESTAMP': [String(TS)], 'X-Service-Signature': [signature] },
        secret: SECRET,
        now: NOW,
      }).deliveryId,
    ).toBeNull();
    const headers = new Headers({ 'X-Service-Timestamp': String(TS), 'X-Service-Signature': signature, 'X-Service-Delivery': 'dlv_1' });
    expect(verifyWebhook({ rawBody: RAW, headers, secret: SECRET, now: NOW }).deliveryId).toBe('dlv_1');
  });

  it('refuses a tampered body', () => {
    expect(reasonOf(delivery({ rawBody: RAW.replace('1000000000000', '9000000000000') }))).toBe('SIGNATURE_MISMATCH');
  });

  it('refuses a body re-serialised after receipt (whitespace counts)', () => {
    expect(reasonOf(delivery({ rawBody: JSON.stringify(JSON.parse(RAW), null, 2) }))).toBe('SIGNATURE_MISMATCH');
  });

  it('refuses the wrong secret', () => {
    expect(reasonOf(delivery({ secret: 'whsec_someone_else' }))).toBe('SIGNATURE_MISMATCH');
  });

  it('refuses a timestamp other than the one signed', () => {
    expect(reasonOf(delivery({}, { 'x-service-timestamp': String(TS - 1) }))).toBe('SIGNATURE_MISMATCH');
  });

  it('refuses a genuine delivery older or further in the future than the tolerance', () => {
    const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
    expect(verifyWebhook(delivery({ now: at(300) })).event).toBe('DEPOSIT_SWEPT');
    expect(verifyWebhook(delivery({ now: at(-300) })).event).toBe('DEPOSIT_SWEPT');
    expect(reasonOf(delivery({ now: at(301) }))).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(reasonOf(delivery({ now: at(-301) }))).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(reasonOf(delivery({ now: at(61), toleranceSeconds: 60 }))).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
  });

  it('during a rotation accepts X-Service-Signature-Previous from a receiver that holds only the old secret', () => {
    const headers = { 'x-service-signature-previous': signWebhook({ secret: OLD_SECRET, timestamp: TS, rawBody: RAW }) };
    expect(verifyWebhook(delivery({ secret: OLD_SECRET }, headers)).event).toBe('DEPOSIT_SWEPT');
    expect(verifyWebhook(delivery({ secret: SECRET }, headers)).event).toBe('DEPOSIT_SWEPT');
    expect(reasonOf(delivery({ secret: OLD_SECRET }))).toBe('SIGNATURE_MISMATCH');
  });

  it('accepts any of several secrets the receiver holds', () => {
    expect(verifyWebhook(delivery({ secret: ['whsec_retired', SECRET] })).event).toBe('DEPOSIT_SWEPT');
    expect(reasonOf(delivery({ secret: ['whsec_retired', 'whsec_other'] }))).toBe('SIGNATURE_MISMATCH');
  });

  it('refuses a signature without the sha256= prefix or not 64 hex', () => {
    const bare = signWebhook({ secret: SECRET, timestamp: TS, rawBody: RAW }).slice('sha256='.length);
    expect(reasonOf(delivery({}, { 'x-service-signature': bare }))).toBe('MALFORMED_SIGNATURE');
    expect(reasonOf(delivery({}, { 'x-service-signature': `sha256=${bare.slice(2)}` }))).toBe('MALFORMED_SIGNATURE');
    expect(reasonOf(delivery({}, { 'x-service-signature': `sha1=${bare}` }))).toBe('MALFORMED_SIGNATURE');
  });

  it('refuses missing headers and a timestamp that is not Unix seconds', () => {
    expect(reasonOf(delivery({}, { 'x-service-signature': undefined }))).toBe('MISSING_SIGNATURE');
    expect(reasonOf(delivery({}, { 'x-service-timestamp': undefined }))).toBe('MISSING_TIMESTAMP');
    expect(reasonOf(delivery({}, { 'x-service-timestamp': '2026-03-01T12:00:00Z' }))).toBe('INVALID_TIMESTAMP');
  });

  it('parses only after the signature holds, and refuses a signed body that is no envelope', () => {
    const raw = '{"event":"DEPOSIT_SWEPT"';
    const signed = (rawBody: string) =>
      delivery({ rawBody }, { 'x-service-signature': signWebhook({ secret: SECRET, timestamp: TS, rawBody }) });
    expect(reasonOf(delivery({ rawBody: raw }))).toBe('SIGNATURE_MISMATCH');
    expect(reasonOf(signed(raw))).toBe('INVALID_PAYLOAD');
    expect(reasonOf(signed('{"event":"DEPOSIT_SWEPT","created_at":"2026-03-01T12:00:00Z"}'))).toBe('INVALID_PAYLOAD');
  });

  it('refuses to run without a secret', () => {
    expect(() => verifyWebhook(delivery({ secret: [] }))).toThrow(TypeError);
    expect(() => verifyWebhook(delivery({ secret: '' }))).toThrow(TypeError);
  });
});
