// Types of the API key endpoints (docs/api.md#api-keys).
import type { DateTimeString } from '../types.js';

export const API_KEY_SCOPES = [
  'wallets:read',
  'wallets:write',
  'customers:read',
  'customers:write',
  'transactions:read',
  'withdrawals:read',
  'withdrawals:write',
  'webhooks:read',
  'webhooks:write',
  'fees:read',
  'api_keys:read',
  'api_keys:write',
] as const;
export type Scope = (typeof API_KEY_SCOPES)[number];

/** Legacy coarse permission, used only by keys without scopes. */
export type Permission = 'READ_ONLY' | 'READ_WRITE';

export interface ApiKey {
  id: string;
  label: string;
  /** Sent in X-Service-Key: sk_live_... or sk_test_... */
  key_id: string;
  /** Empty for a legacy key, whose rights come from `permission`. */
  scopes: Scope[];
  /** Null when the key has scopes. */
  permission: Permission | null;
  /** Single IPs or CIDR ranges; empty means no restriction. */
  allowed_ips: string[];
  is_test: boolean;
  last_used_at: DateTimeString | null;
  /** Null for a key that never expires. */
  expires_at: DateTimeString | null;
  created_at: DateTimeString;
}

/** The creation response: the only time the secret is ever shown. */
export interface CreatedApiKey extends ApiKey {
  secret: string;
}

/**
 * `label` and one of `scopes` (preferred) or `permission` (legacy) are required.
 * A key may grant only scopes it holds itself (403 INSUFFICIENT_SCOPE).
 */
export interface CreateApiKeyParams {
  label: string;
  scopes?: Scope[];
  permission?: Permission;
  /** Single IPs or CIDR ranges, IPv4 or IPv6; omit for no restriction. */
  allowed_ips?: string[];
  /** A future ISO 8601 date-time; omit for a key that never expires. */
  expires_at?: DateTimeString;
}

export interface RevokedApiKey {
  message: string;
}
