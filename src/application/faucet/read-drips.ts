// GET /v2/sandbox/faucet/{drip_id} (wallets:read, docs/api.md#sandbox-faucet):
// the caller's workspace and network side only; another workspace's drip, or
// any drip asked for with a live key (drips exist on the testnets only), is
// simply not found.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import type { Drip } from '../../domain/faucet/faucet.js';
import { isUuid } from '../../domain/ids.js';
import { networksOfSide } from '../../domain/money/networks.js';
import type { UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class ReadDrips {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  async get(principal: Principal, id: string): Promise<Drip> {
    requireScope(principal, 'wallets:read');
    const found = isUuid(id) ? await this.uow.run((tx) => tx.faucet.get(principal.workspaceId, networksOfSide(principal.side), id.toLowerCase())) : null;
    if (!found) throw new DomainError('NOT_FOUND', 'No such drip');
    return found;
  }
}
