// Who is calling: the authenticated key, its workspace and the side of the
// networks it acts on (docs/api.md#live-and-test-keys). Built by
// authentication, read by every use case.
import type { NetworkSide } from '../money/networks.js';
import { DomainError } from '../errors.js';
import { hasAnyReadScope, type Scope } from './scopes.js';

export interface Principal {
  workspaceId: string;
  apiKeyId: string;
  keyId: string;
  side: NetworkSide;
  scopes: ReadonlySet<Scope>;
  /** The calling key's own limits: a key it creates can be no less restricted. */
  restrictions: { allowedIps: readonly string[]; expiresAt: Date | null };
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.has(scope)) {
    throw new DomainError('INSUFFICIENT_SCOPE', `This API key lacks the ${scope} scope`);
  }
}

/**
 * What an endpoint asks of the calling key: any valid key, one scope, or at
 * least one `:read` scope (fee quotes). Every route declares one, and the HTTP
 * adapter checks it before it looks at the request's body or query.
 */
export type Access = { kind: 'any-key' } | { kind: 'scope'; scope: Scope } | { kind: 'any-read-scope' };

export const anyKey: Access = { kind: 'any-key' };
export const anyReadScope: Access = { kind: 'any-read-scope' };
export const scope = (s: Scope): Access => ({ kind: 'scope', scope: s });

export function requireAccess(principal: Principal, access: Access): void {
  if (access.kind === 'scope') requireScope(principal, access.scope);
  if (access.kind === 'any-read-scope' && !hasAnyReadScope(principal.scopes)) {
    throw new DomainError('INSUFFICIENT_SCOPE', 'This endpoint needs a key with at least one :read scope');
  }
}
