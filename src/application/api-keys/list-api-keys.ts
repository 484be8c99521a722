// GET /v2/api-keys: the workspace's active keys on the caller's network, no secrets.
import { inject, injectable } from 'tsyringe';
import type { ApiKey } from '../../domain/auth/api-key.js';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class ListApiKeys {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, page: PageRequest): Promise<Page<ApiKey>> {
    requireScope(principal, 'api_keys:read');
    return this.uow.run((tx) => tx.apiKeys.listActive(principal.workspaceId, principal.side, this.clock.now(), page));
  }
}
