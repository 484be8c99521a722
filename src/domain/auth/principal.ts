// Who is calling: the authenticated key, its workspace and the side of the
// networks it acts on (D10). Built by authentication, read by every use case.
import type { NetworkSide } from '../money/networks.js';
import { DomainError } from '../errors.js';
import type { Scope } from './scopes.js';

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
