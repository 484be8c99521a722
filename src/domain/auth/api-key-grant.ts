// What a new API key may hold (contract 4.6, 5.4): explicit scopes, or a
// legacy permission when none are given; never more than its creator holds.
import { DomainError } from '../errors.js';
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
