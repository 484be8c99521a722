// One signed request to the API with the integrator's key (docs/api.md#authentication),
// shared by `npm run api` and `npm run listen`.
import { authHeaders } from '../../sdk/signing.js';
import type { Credentials } from './credentials.js';

export interface SignedRequest {
  method: string;
  /** The request target as sent and signed: /v2/… with its query string. */
  target: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface SignedAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
  /** The answer's JSON, or null when it is not JSON. */
  json: unknown;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function signedFetch(creds: Credentials, req: SignedRequest, fetchImpl: typeof fetch = fetch): Promise<SignedAnswer> {
  const once = async (): Promise<SignedAnswer> => {
    const body = req.body ?? '';
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...req.headers,
      ...authHeaders(creds.keyId, { secret: creds.secret, method: req.method, path: req.target, body }),
    };
    if (body) headers['content-type'] = 'application/json';
    // A redirect is never followed: it would resend the signed request, body and all, to whatever host it names.
    const res = await fetchImpl(`${creds.origin}${req.target}`, { method: req.method, headers, body: body || undefined, signal: AbortSignal.timeout(30_000), redirect: 'manual' });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, statusText: res.statusText, headers: res.headers, text, json };
  };
  const first = await once();
  // Two identical signed requests in one second are a replay, refused before anything runs: the same
  // command run twice within a second is sent again, signed in the next second.
  if (first.status === 401 && (first.json as { code?: string } | null)?.code === 'REPLAY_DETECTED') {
    await sleep(1100 - (Date.now() % 1000));
    return once();
  }
  return first;
}

/** The API's `code` of an error answer, if any. */
export const errorCodeOf = (a: SignedAnswer): string | undefined => (a.json as { code?: string } | null)?.code ?? undefined;
