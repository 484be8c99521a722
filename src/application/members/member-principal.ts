// A signed-in member acting through the dashboard, seen by the API's use
// cases as a principal of their workspace on one side (live: mainnets, test:
// testnets): an OWNER holds every scope, the other roles the read scopes. The
// dashboard reuses the API's reads and changes this way, one way to do each.
import type { Principal } from '../../domain/auth/principal.js';
import { READ_SCOPES, SCOPES } from '../../domain/auth/scopes.js';
import { may } from '../../domain/members/member.js';
import type { SignedInMember } from '../../domain/members/session.js';
import type { NetworkSide } from '../../domain/money/networks.js';

export function memberPrincipal(m: SignedInMember, side: NetworkSide): Principal {
  return {
    workspaceId: m.workspaceId,
    // Not a key: a key created by a member is no more restricted than the workspace's own first keys.
    apiKeyId: `member:${m.memberId}`,
    keyId: `member:${m.email}`,
    side,
    scopes: new Set(may(m.role, 'manage') ? SCOPES : READ_SCOPES),
    restrictions: { allowedIps: [], expiresAt: null },
  };
}
