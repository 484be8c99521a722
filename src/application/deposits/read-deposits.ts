// GET /v2/transactions/deposits[/{id}] and GET /v2/transactions (scope
// transactions:read, docs/api.md#deposits): the caller's workspace and
// network side only; another workspace's deposit, or one of the other side,
// is simply not found.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { shownConfirmations, type Deposit } from '../../domain/deposits/deposit.js';
import type { DepositFilter } from '../../domain/deposits/ports.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { networksOfSide, type Network } from '../../domain/money/networks.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { UnitOfWork } from '../../domain/ports.js';
import type { TransactionType } from '../../domain/withdrawals/transaction-log.js';
import type { Withdrawal } from '../../domain/withdrawals/withdrawal.js';
import { TOKENS } from '../tokens.js';

/** One record of GET /v2/transactions (ADR 0022): a deposit or a withdrawal. */
export type TransactionRecord = { type: 'DEPOSIT'; deposit: Deposit } | { type: 'WITHDRAWAL'; withdrawal: Withdrawal };

/** Open deposits with their confirmations counted up to what the scanner has read. */
const withShownConfirmations = (deposits: Deposit[], tips: Map<Network, bigint>): Deposit[] =>
  deposits.map((d) => ({ ...d, confirmations: shownConfirmations(d, tips.get(d.network) ?? null) }));

@injectable()
export class ReadDeposits {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  list(principal: Principal, filter: DepositFilter, page: PageRequest): Promise<Page<Deposit>> {
    requireScope(principal, 'transactions:read');
    // Reads only: no transaction (a total counted a moment after the page is what any list shows under writes).
    return this.uow.read(async (tx) => {
      const networks = networksOfSide(principal.side);
      const found = await tx.deposits.list(principal.workspaceId, networks, filter, page);
      return { ...found, data: withShownConfirmations(found.data, await tx.scanState.tips(networks)) };
    });
  }

  async get(principal: Principal, id: string): Promise<Deposit> {
    requireScope(principal, 'transactions:read');
    const deposit = isUuid(id)
      ? await this.uow.run(async (tx) => {
          const d = await tx.deposits.get(principal.workspaceId, networksOfSide(principal.side), id.toLowerCase());
          return d ? withShownConfirmations([d], await tx.scanState.tips([d.network]))[0]! : null;
        })
      : null;
    if (!deposit) throw new DomainError('NOT_FOUND', 'No such deposit');
    return deposit;
  }

  /** Every money movement of the workspace on the key's side, newest start first. */
  async transactions(principal: Principal, filter: { type?: TransactionType; network?: Network }, page: PageRequest): Promise<Page<TransactionRecord>> {
    requireScope(principal, 'transactions:read');
    const side = networksOfSide(principal.side);
    const networks = filter.network ? side.filter((n) => n === filter.network) : side;
    return this.uow.run(async (tx) => {
      const { total, refs } = await tx.transactionLog.page(principal.workspaceId, networks, filter.type, page);
      const tips = await tx.scanState.tips(networks);
      const idsOf = (type: TransactionType) => refs.filter((r) => r.type === type).map((r) => r.id);
      const deposits = new Map(withShownConfirmations(await tx.deposits.getMany(principal.workspaceId, networks, idsOf('DEPOSIT')), tips).map((d) => [d.id, d]));
      const withdrawals = new Map((await tx.withdrawals.getMany(principal.workspaceId, networks, idsOf('WITHDRAWAL'))).map((w) => [w.id, w]));
      const data: TransactionRecord[] = [];
      for (const ref of refs) {
        const deposit = ref.type === 'DEPOSIT' ? deposits.get(ref.id) : undefined;
        const withdrawal = ref.type === 'WITHDRAWAL' ? withdrawals.get(ref.id) : undefined;
        if (deposit) data.push({ type: 'DEPOSIT', deposit });
        if (withdrawal) data.push({ type: 'WITHDRAWAL', withdrawal });
      }
      return { total, page: page.page, limit: page.limit, data };
    });
  }
}
