// The operator's and owner's withdrawal actions (ops withdrawal
// approve|reject|hold|release, ops workspace freeze|unfreeze;
// docs/operations.md#withdrawals): approve moves PENDING_APPROVAL to PENDING;
// reject cancels it (the lock released, WITHDRAWAL_CANCELLED); hold moves a
// PENDING withdrawal not picked up yet to UNDER_REVIEW (WITHDRAWAL_HELD);
// release moves it back to PENDING. Each under the withdrawal's row lock, the
// one the chain-worker's pick-up and a client's cancel take too. Each action
// is recorded in the workspace's audit log with the operator as its actor
// (the operator's approve moves a withdrawal on whatever the quorum: the
// override the dashboard's approvals do not have).
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import { sideOf } from '../../domain/money/networks.js';
import { OPERATOR } from '../../domain/members/audit.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import { approved, held, released, WithdrawalStateError, type Withdrawal } from '../../domain/withdrawals/withdrawal.js';
import { TOKENS } from '../tokens.js';
import { CancelWithdrawal } from './cancel-withdrawal.js';
import { withdrawalEventData } from './withdrawal-view.js';

export type WithdrawalAction = 'approve' | 'reject' | 'hold' | 'release';

@injectable()
export class OperateWithdrawals {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(CancelWithdrawal) private readonly cancel: CancelWithdrawal,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  async execute(action: WithdrawalAction, id: string): Promise<Withdrawal> {
    return this.uow.run(async (tx) => {
      const w = await tx.withdrawals.lock(id);
      if (!w) throw new DomainError('NOT_FOUND', `No withdrawal ${id}`);
      if (action === 'reject') {
        if (w.status !== 'PENDING_APPROVAL') throw new DomainError('UNPROCESSABLE', `Withdrawal ${id} is ${w.status}: only one waiting for approval can be rejected`);
        const cancelled = await this.cancel.cancelLocked(tx, id);
        await this.audit(tx, w, cancelled, action);
        return cancelled;
      }
      const now = this.clock.now();
      let next: Withdrawal;
      try {
        next = action === 'approve' ? approved(w, now) : action === 'hold' ? held(w, now) : released(w, now);
      } catch (err) {
        if (err instanceof WithdrawalStateError) throw new DomainError('UNPROCESSABLE', err.message);
        throw err;
      }
      await tx.withdrawals.save(next);
      await this.audit(tx, w, next, action);
      if (action === 'hold') await tx.events.publish({ workspaceId: next.workspaceId, side: sideOf(next.network), event: 'WITHDRAWAL_HELD', data: withdrawalEventData(next) });
      return next;
    });
  }

  /** The operator's action in the workspace's audit log, which its owners read in the dashboard. */
  private audit(tx: TxContext, before: Withdrawal, after: Withdrawal, action: WithdrawalAction): Promise<void> {
    return tx.audit.record({
      id: this.random.uuid(),
      workspaceId: before.workspaceId,
      actor: OPERATOR,
      action: `withdrawal.${action}`,
      target: before.id,
      before: { status: before.status },
      after: { status: after.status },
      at: this.clock.now(),
    });
  }

  /** Freezes (or unfreezes) a workspace's withdrawals: new requests are WITHDRAWALS_FROZEN and pending ones wait. */
  async freeze(workspaceId: string, frozen: boolean): Promise<void> {
    const changed = await this.uow.run((tx) => tx.workspaces.setWithdrawalsFrozen(workspaceId, frozen, this.clock.now()));
    if (!changed) throw new DomainError('WORKSPACE_NOT_FOUND', `No workspace ${workspaceId}`);
  }
}
