// Approvals in the dashboard (issue 32, ADR 0033): an OWNER or APPROVER
// approves or rejects a withdrawal of their workspace waiting for approval.
// Each member counts once, and only a member who had joined before the
// withdrawal was requested counts; the withdrawal moves on (PENDING) when as
// many distinct members as the policy's quorum have approved it. A rejection by any
// one of them cancels it (the lock released, WITHDRAWAL_CANCELLED). Under the
// withdrawal's row lock, like the operator's ops withdrawal approve|reject.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import type { Actor } from '../../domain/members/audit.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import { approved, type Withdrawal } from '../../domain/withdrawals/withdrawal.js';
import { TOKENS } from '../tokens.js';
import { CancelWithdrawal } from '../withdrawals/cancel-withdrawal.js';

export interface Decision {
  withdrawal: Withdrawal;
  /** Distinct members who have approved it, and how many it needs. */
  approvals: number;
  quorum: number;
}

@injectable()
export class DecideWithdrawal {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(CancelWithdrawal) private readonly cancel: CancelWithdrawal,
  ) {}

  /** The quorum of the workspace's policy (1 when it has none). */
  async quorum(workspaceId: string): Promise<number> {
    return this.uow.run(async (tx) => (await tx.security.getForUpdate(workspaceId))?.approvalQuorum ?? 1);
  }

  async approve(workspaceId: string, actor: Actor & { memberId: string }, withdrawalId: string): Promise<Decision> {
    return this.uow.run(async (tx) => {
      const w = await this.waiting(tx, workspaceId, withdrawalId);
      const now = this.clock.now();
      // A member who joined after the request cannot count toward it: an owner cannot mint approvers to meet a quorum alone.
      const approver = await tx.members.byId(actor.memberId);
      if (!approver || approver.createdAt.getTime() > w.requestedAt.getTime()) {
        throw new DomainError('UNPROCESSABLE', 'Only members who had joined before this withdrawal was requested can approve it');
      }
      const quorum = (await tx.security.getForUpdate(workspaceId))?.approvalQuorum ?? 1;
      if (!(await tx.members.approve(w.id, actor.memberId, now))) {
        throw new DomainError('CONFLICT', 'You have approved this withdrawal already: each member counts once');
      }
      const approvals = (await tx.members.approvers(w.id)).length;
      const next = approvals >= quorum ? approved(w, now) : w;
      if (next !== w) await tx.withdrawals.save(next);
      await tx.audit.record({
        id: this.random.uuid(),
        workspaceId,
        actor,
        action: 'withdrawal.approve',
        target: w.id,
        before: { status: w.status, approvals: approvals - 1, quorum },
        after: { status: next.status, approvals, quorum },
        at: now,
      });
      return { withdrawal: next, approvals, quorum };
    });
  }

  async reject(workspaceId: string, actor: Actor, withdrawalId: string): Promise<Withdrawal> {
    return this.uow.run(async (tx) => {
      const w = await this.waiting(tx, workspaceId, withdrawalId);
      const cancelled = await this.cancel.cancelLocked(tx, w.id);
      await tx.audit.record({
        id: this.random.uuid(),
        workspaceId,
        actor,
        action: 'withdrawal.reject',
        target: w.id,
        before: { status: w.status },
        after: { status: cancelled.status },
        at: this.clock.now(),
      });
      return cancelled;
    });
  }

  private async waiting(tx: TxContext, workspaceId: string, id: string): Promise<Withdrawal> {
    const w = await tx.withdrawals.lock(id);
    // Another workspace's withdrawal is as absent as one that does not exist.
    if (!w || w.workspaceId !== workspaceId) throw new DomainError('NOT_FOUND', 'No such withdrawal');
    if (w.status !== 'PENDING_APPROVAL') throw new DomainError('UNPROCESSABLE', `This withdrawal is ${w.status}: only one waiting for approval can be approved or rejected`);
    return w;
  }
}
