// An API key as the domain sees it. The secret never appears here in clear:
// only its ciphertext, which a SecretCipher opens when a signature is checked.
import type { NetworkSide } from '../money/networks.js';
import { effectiveScopes, type LegacyPermission, type Scope } from './scopes.js';

export interface ApiKey {
  id: string;
  workspaceId: string;
  keyId: string;
  label: string;
  scopes: Scope[];
  permission: LegacyPermission | null;
  allowedIps: string[];
  isTest: boolean;
  secretCiphertext: string;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

/** Active keys (neither revoked nor expired) a workspace may hold on each side, so that keys cannot multiply its rate limit without bound. */
export const MAX_ACTIVE_KEYS_PER_SIDE = 100;

export const keySide = (key: Pick<ApiKey, 'isTest'>): NetworkSide => (key.isTest ? 'test' : 'live');

export const isExpired = (key: Pick<ApiKey, 'expiresAt'>, now: Date): boolean =>
  key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime();

export const scopesOf = (key: Pick<ApiKey, 'scopes' | 'permission'>): ReadonlySet<Scope> =>
  effectiveScopes(key.scopes, key.permission);

/** key_id format (docs/api.md#api-keys): sk_live_<random> or sk_test_<random>. */
export const keyIdPrefix = (side: NetworkSide): string => (side === 'live' ? 'sk_live_' : 'sk_test_');
