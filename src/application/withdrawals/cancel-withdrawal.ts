// POST /v2/withdrawals/{id}/cancel (withdrawals:write), and the owner's or
// operator's reject: from PENDING_APPROVAL, PENDING (not picked up yet) or
// UNDER_REVIEW the withdrawal becomes CANCELLED, the lock goes back to
// available and WITHDRAWAL_CANCELLED is published, in one transaction under
// the withdrawal's row lock, the lock the chain-worker's pick-up takes too:
// exactly one of them wins. Anything else is 422 WITHDRAWAL_NOT_CANCELLABLE.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { releaseLock } from '../../domain/ledger/entries.js';
import { Amount } from '../../domain/money/amount.js';
import { networksOfSide, sideOf } from '../../domain/money/networks.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import { cancelled, type Withdrawal } from '../../domain/withdrawals/withdrawal.js';
import { TOKENS } from '../tokens.js';
import { withdrawalEventData } from './withdrawal-view.js';

@injectable()
export class CancelWithdrawal {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, id: string): Promise<Withdrawal> {
    requireScope(principal, 'withdrawals:write');
    return this.uow.run(async (tx) => {
      const visible = isUuid(id) ? await tx.withdrawals.get(principal.workspaceId, networksOfSide(principal.side), id.toLowerCase()) : null;
      if (!visible) throw new DomainError('NOT_FOUND', 'No such withdrawal');
      return this.cancelLocked(tx, visible.id);
    });
  }

  /** Inside a transaction: locks, cancels, releases the lock and publishes (the operator's reject shares it). */
  async cancelLocked(tx: TxContext, id: string): Promise<Withdrawal> {
    const current = await tx.withdrawals.lock(id);
    if (!current) throw new DomainError('NOT_FOUND', 'No such withdrawal');
    const now = this.clock.now();
    const next = cancelled(current, now);
    await tx.withdrawals.save(next);
    await tx.ledger.post(
      releaseLock({ id: this.random.uuid(), network: next.network, at: now, withdrawalId: next.id, workspaceId: next.workspaceId, amount: Amount.ofUnits(next.asset, next.amount) }),
    );
    await tx.events.publish({ workspaceId: next.workspaceId, side: sideOf(next.network), event: 'WITHDRAWAL_CANCELLED', data: withdrawalEventData(next) });
    return next;
  }
}
