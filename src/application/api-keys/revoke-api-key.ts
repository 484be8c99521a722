// DELETE /v2/api-keys/{id}: revoked keys are refused from their next request
// on (admission checks a key kept by an api process is still as read: ADR 0008).
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class RevokeApiKey {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, id: string): Promise<void> {
    requireScope(principal, 'api_keys:write');
    if (!isUuid(id)) throw new DomainError('NOT_FOUND', 'No such API key');
    const revoked = await this.uow.run((tx) =>
      tx.apiKeys.revoke(id, principal.workspaceId, principal.side, this.clock.now()),
    );
    if (!revoked) throw new DomainError('NOT_FOUND', 'No such API key');
  }
}
