// Idempotency of creates (docs/api.md#idempotency): a key of 1–255 characters from
// A-Z a-z 0-9 _ -, scoped per workspace, network side, method and path, kept
// 24 hours. A replay returns the stored response; the request is compared by
// meaning (canonical JSON), so key order and whitespace do not matter.
import type { NetworkSide } from '../money/networks.js';

export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{1,255}$/;
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyScope {
  workspaceId: string;
  side: NetworkSide;
  method: string;
  path: string;
  key: string;
}

/**
 * The response of the first execution, returned unchanged on replay: its
 * status and the exact JSON text of its body, so a replay is byte-identical.
 */
export interface StoredResponse {
  status: number;
  body: string;
}

export interface IdempotencyRecord extends IdempotencyScope {
  fingerprint: string;
  response: StoredResponse;
  createdAt: Date;
  expiresAt: Date;
}

/** JSON with object keys sorted at every level: equal for requests that mean the same. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
