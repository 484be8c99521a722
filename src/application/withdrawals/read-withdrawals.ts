// GET /v2/withdrawals[/{id}] (withdrawals:read) and GET
// /v2/transactions/withdrawals (transactions:read), docs/api.md#withdrawals:
// the caller's workspace and network side only; another workspace's
// withdrawal, or one of the other side, is simply not found.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { networksOfSide } from '../../domain/money/networks.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { UnitOfWork } from '../../domain/ports.js';
import type { WithdrawalFilter } from '../../domain/withdrawals/ports.js';
import type { Withdrawal } from '../../domain/withdrawals/withdrawal.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class ReadWithdrawals {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  /** `scope`: withdrawals:read for /withdrawals, transactions:read for /transactions/withdrawals. */
  list(principal: Principal, scope: 'withdrawals:read' | 'transactions:read', filter: WithdrawalFilter, page: PageRequest): Promise<Page<Withdrawal>> {
    requireScope(principal, scope);
    return this.uow.run((tx) => tx.withdrawals.list(principal.workspaceId, networksOfSide(principal.side), filter, page));
  }

  async get(principal: Principal, id: string): Promise<Withdrawal> {
    requireScope(principal, 'withdrawals:read');
    const found = isUuid(id) ? await this.uow.run((tx) => tx.withdrawals.get(principal.workspaceId, networksOfSide(principal.side), id.toLowerCase())) : null;
    if (!found) throw new DomainError('NOT_FOUND', 'No such withdrawal');
    return found;
  }
}
