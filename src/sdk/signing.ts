// Request signing (docs/api.md#authentication), shared by the client SDK and
// anything else that must sign like an integrator: HMAC-SHA256 over
// TIMESTAMP.METHOD.PATH.BODY_SHA256 with the key's secret.
import { createHash, createHmac } from 'node:crypto';

export interface SignInput {
  secret: string;
  /** Unix seconds, as sent in X-Service-Timestamp. */
  timestamp: string;
  method: string;
  /** The request target exactly as sent: /v2/... with the query string. */
  path: string;
  /** The exact body bytes sent (empty for none). */
  body?: string | Uint8Array;
}

export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

export function signRequest(input: SignInput): string {
  const signing = `${input.timestamp}.${input.method.toUpperCase()}.${input.path}.${sha256Hex(input.body ?? '')}`;
  return createHmac('sha256', input.secret).update(signing, 'utf8').digest('hex');
}

/** The three authentication headers for one request. */
export function authHeaders(
  keyId: string,
  input: Omit<SignInput, 'timestamp'> & { timestamp?: string },
): Record<string, string> {
  const timestamp = input.timestamp ?? String(Math.floor(Date.now() / 1000));
  return {
    'X-Service-Key': keyId,
    'X-Service-Timestamp': timestamp,
    'X-Service-Signature': signRequest({ ...input, timestamp }),
  };
}
