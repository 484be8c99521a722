// GET /v2/webhooks and GET /v2/webhooks/{id} (scope webhooks:read), on the
// caller's workspace and side: anything else is not found.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { UnitOfWork } from '../../domain/ports.js';
import type { WebhookEndpoint } from '../../domain/webhooks/webhook-endpoint.js';
import { TOKENS } from '../tokens.js';
import { callersEndpoint } from './callers-endpoint.js';

@injectable()
export class ReadWebhookEndpoints {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  list(principal: Principal, page: PageRequest): Promise<Page<WebhookEndpoint>> {
    requireScope(principal, 'webhooks:read');
    return this.uow.run((tx) => tx.webhooks.list(principal.workspaceId, principal.side, page));
  }

  get(principal: Principal, id: string): Promise<WebhookEndpoint> {
    requireScope(principal, 'webhooks:read');
    return this.uow.run((tx) => callersEndpoint(tx, principal, id));
  }
}
