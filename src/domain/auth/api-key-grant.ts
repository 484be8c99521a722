// What a new API key may hold (docs/api.md#api-keys): explicit scopes, or a
// legacy permission when none are given; never more than its creator holds.
import { DomainError } from '../errors.js';
import { rangeWithin } from './ip-allowlist.js';
import { effectiveScopes, type LegacyPermission, type Scope } from './scopes.js';

export interface GrantRequest {
  scopes?: Scope[];
  permission?: LegacyPermission;
}

export interface Grant {
  scopes: Scope[];
  permission: LegacyPermission | null;
}

export function decideGrant(req: GrantRequest, creatorScopes: ReadonlySet<Scope>): Grant {
  const scopes = [...new Set(req.scopes ?? [])];
  const grant: Grant =
    scopes.length > 0 ? { scopes, permission: null } : { scopes: [], permission: req.permission ?? null };
  if (grant.scopes.length === 0 && grant.permission === null) {
    throw new DomainError('VALIDATION_ERROR', 'Give scopes (preferred) or a legacy permission', [
      { path: 'scopes', message: 'scopes or permission is required' },
    ]);
  }
  const missing = [...effectiveScopes(grant.scopes, grant.permission)].filter((s) => !creatorScopes.has(s));
  if (missing.length > 0) {
    throw new DomainError('INSUFFICIENT_SCOPE', `A key may only grant scopes it holds; missing: ${missing.join(', ')}`);
  }
  return grant;
}

export interface KeyRestrictions {
  allowedIps: readonly string[];
  expiresAt: Date | null;
}

/**
 * The limits of a new key given its creator's (docs/api.md#api-keys: no key
 * mints a key it could not be). Left out, a limit is inherited; given, it
 * must be at least as tight: every allowlist entry inside the creator's
 * allowlist, the expiry no later than the creator's.
 */
export function narrowRestrictions(
  requested: { allowedIps: readonly string[]; expiresAt: Date | null },
  creator: KeyRestrictions,
): KeyRestrictions {
  let allowedIps = requested.allowedIps;
  if (creator.allowedIps.length > 0) {
    if (allowedIps.length === 0) allowedIps = creator.allowedIps;
    const outside = allowedIps.find((entry) => !creator.allowedIps.some((range) => rangeWithin(entry, range)));
    if (outside !== undefined) {
      throw new DomainError('INSUFFICIENT_SCOPE', `A key may only create keys within its own allowlist; ${outside} is outside it`);
    }
  }
  let expiresAt = requested.expiresAt;
  if (creator.expiresAt) {
    if (!expiresAt) expiresAt = creator.expiresAt;
    if (expiresAt.getTime() > creator.expiresAt.getTime()) {
      throw new DomainError('INSUFFICIENT_SCOPE', 'A key may only create keys that expire no later than itself');
    }
  }
  return { allowedIps, expiresAt };
}
