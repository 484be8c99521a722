// Key scopes and the legacy permission mapping (docs/api.md#scopes).
export const SCOPES = [
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
export type Scope = (typeof SCOPES)[number];

export const LEGACY_PERMISSIONS = ['READ_ONLY', 'READ_WRITE'] as const;
export type LegacyPermission = (typeof LEGACY_PERMISSIONS)[number];

export const READ_SCOPES: readonly Scope[] = SCOPES.filter((s) => s.endsWith(':read'));

/**
 * The scopes a key actually holds: its explicit scopes, or, when it has none,
 * those its legacy permission implies (READ_WRITE → all, READ_ONLY → all :read).
 */
export function effectiveScopes(scopes: readonly Scope[], permission: LegacyPermission | null): ReadonlySet<Scope> {
  if (scopes.length > 0) return new Set(scopes);
  if (permission === 'READ_WRITE') return new Set(SCOPES);
  if (permission === 'READ_ONLY') return new Set(READ_SCOPES);
  return new Set();
}

export const hasAnyReadScope = (held: ReadonlySet<Scope>): boolean => READ_SCOPES.some((s) => held.has(s));
