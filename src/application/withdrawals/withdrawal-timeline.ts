// A withdrawal's timeline for the dashboard (issue 32). No history of a
// withdrawal's state changes is stored: the steps come from the times the
// records hold: the withdrawal's requested_at and confirmed_at, each member's
// approval (withdrawal_approvals), its outgoing transfer's requested_at
// (picked up for sending) and broadcast_at, and the withdrawal's updated_at
// for where it stopped otherwise (cancelled, failed, held). A step that left
// no time of its own (an operator's approval or release, a block reorganised
// out) shows only through the steps that did.
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../domain/auth/principal.js';
import type { UnitOfWork } from '../../domain/ports.js';
import type { Withdrawal } from '../../domain/withdrawals/withdrawal.js';
import type { TimelineStep } from '../deposits/deposit-timeline.js';
import { TOKENS } from '../tokens.js';
import { ReadWithdrawals } from './read-withdrawals.js';

export interface WithdrawalTimeline {
  withdrawal: Withdrawal;
  steps: TimelineStep[];
}

const ENDS: Partial<Record<Withdrawal['status'], string>> = {
  CANCELLED: 'Cancelled or rejected: the amount went back to available',
  FAILED: 'Failed: the whole amount went back to available',
  UNDER_REVIEW: 'Held for review by compliance',
  PENDING_APPROVAL: 'Waiting for approval',
};

@injectable()
export class ReadWithdrawalTimeline {
  constructor(
    @inject(ReadWithdrawals) private readonly reads: ReadWithdrawals,
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
  ) {}

  /** NOT_FOUND for another workspace's withdrawal, one of the other side, or a malformed id (as GET /v2/withdrawals/{id}). */
  async execute(principal: Principal, id: string): Promise<WithdrawalTimeline> {
    const w = await this.reads.get(principal, id);
    const { approvals, transfer } = await this.uow.read(async (tx) => ({
      approvals: await tx.members.approvers(w.id),
      transfer: w.transferId ? await tx.transfers.get(w.transferId) : null,
    }));
    const steps: TimelineStep[] = [{ label: 'Requested', at: w.requestedAt, detail: null }];
    for (const a of approvals) steps.push({ label: 'Approved', at: a.at, detail: `by ${a.email}` });
    if (transfer) steps.push({ label: 'Picked up for sending', at: transfer.requestedAt, detail: null });
    if (transfer?.broadcastAt) steps.push({ label: 'Broadcast', at: transfer.broadcastAt, detail: 'the fee was taken and the amount left custody' });
    if (w.confirmedAt) steps.push({ label: 'Confirmed', at: w.confirmedAt, detail: null });
    const end = ENDS[w.status];
    if (end) steps.push({ label: end, at: w.updatedAt, detail: w.failure ?? 'time of the last change' });
    return { withdrawal: w, steps: steps.sort((a, b) => a.at.getTime() - b.at.getTime()) };
  }
}
