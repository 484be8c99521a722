// The caller's webhook endpoint, by id, inside a unit of work: on the key's
// workspace and side only (anything else, or an id that is not a UUID, is
// NOT_FOUND, never FORBIDDEN), locked when the caller is about to change it.
import type { Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import type { TxContext } from '../../domain/ports.js';
import type { WebhookEndpoint } from '../../domain/webhooks/webhook-endpoint.js';

export async function callersEndpoint(tx: TxContext, principal: Principal, id: string, opts: { lock?: boolean } = {}): Promise<WebhookEndpoint> {
  const endpoint = !isUuid(id)
    ? null
    : opts.lock
      ? await tx.webhooks.getForUpdate(principal.workspaceId, principal.side, id)
      : await tx.webhooks.get(principal.workspaceId, principal.side, id);
  if (!endpoint) throw new DomainError('NOT_FOUND', 'No such webhook endpoint');
  return endpoint;
}
