// The request signing string (docs/api.md#authentication): TIMESTAMP.METHOD.PATH.BODY_SHA256.
export function signingString(timestamp: string, method: string, path: string, bodySha256Hex: string): string {
  return `${timestamp}.${method.toUpperCase()}.${path}.${bodySha256Hex}`;
}

/** Maximum clock skew and replay window for signed requests (docs/api.md#limits). */
export const SIGNATURE_WINDOW_SECONDS = 300;

export const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;
export const TIMESTAMP_PATTERN = /^\d{1,12}$/;
