// POST /v2/wallets/{id}/archive (docs/api.md#wallets): left out of lists from
// now on, still monitored and credited. Archiving an archived wallet changes
// nothing.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { networksOfSide } from '../../domain/money/networks.js';
import type { UnitOfWork } from '../../domain/ports.js';
import type { Wallet } from '../../domain/wallets/wallet.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class ArchiveWallet {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  async execute(principal: Principal, id: string): Promise<Wallet> {
    requireScope(principal, 'wallets:write');
    if (!isUuid(id)) throw new DomainError('NOT_FOUND', 'No such wallet');
    return this.uow.run(async (tx) => {
      const wallet = await tx.wallets.get(principal.workspaceId, networksOfSide(principal.side), id);
      if (!wallet) throw new DomainError('NOT_FOUND', 'No such wallet');
      if (wallet.status !== 'ARCHIVED') await tx.wallets.setStatus(wallet.id, 'ARCHIVED');
      return { ...wallet, status: 'ARCHIVED' };
    });
  }
}
