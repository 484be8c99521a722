// GET /v2/commitment (fees:read, docs/api.md#fee-commitment): the workspace's
// commitment, read-only. Which one: the active one (the one in force now,
// else the next to start); otherwise a suspended one; otherwise an ended one
// that still carries something owed. Its current month (null when it does not
// cover the month), the workspace's last twelve monthly adjustments, newest
// first, and what it owes over every commitment.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import {
  billedUsd,
  daysCovered,
  daysInMonth,
  effectiveStatus,
  formatUsd,
  monthOf,
  needsEurcRate,
  projectedFees,
  proratedFloor,
  type Commitment,
} from '../../domain/commitments/commitment.js';
import { networksOfSide } from '../../domain/money/networks.js';
import type { Clock, TxContext, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { adjustmentView, commitmentView, type AdjustmentView, type CommitmentView } from './commitment-view.js';

/** How many monthly adjustments the API returns. */
export const ADJUSTMENTS_SHOWN = 12;

export interface CurrentPeriodView {
  period_start: string;
  period_end: string;
  days_covered: number;
  days_in_month: number;
  prorated_floor_usdt: string;
  billed_fees_usdt: string;
  remaining_to_floor_usdt: string;
  projected_fees_usdt: string;
  indicative: boolean;
}

export interface CommitmentOverview {
  commitment: CommitmentView | null;
  current_period: CurrentPeriodView | null;
  adjustments: AdjustmentView[];
  outstanding_total_usdt: string;
}

@injectable()
export class ReadCommitment {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal): Promise<CommitmentOverview> {
    requireScope(principal, 'fees:read');
    return this.overview(principal.workspaceId);
  }

  /** The same view for the operator (ops commitment show). */
  overview(workspaceId: string): Promise<CommitmentOverview> {
    return this.uow.run(async (tx) => {
      const now = this.clock.now();
      const all = await tx.commitments.ofWorkspace(workspaceId);
      const withStatus = all.map((c) => ({ c, status: effectiveStatus(c, now) }));
      // Commitments never overlap: at most one is in force now; an ACTIVE one not started yet comes after it.
      const active = withStatus.filter((x) => x.status === 'ACTIVE').sort((a, b) => a.c.startsAt.getTime() - b.c.startsAt.getTime());
      let shown = active.find((x) => x.c.startsAt <= now) ?? active[0] ?? withStatus.find((x) => x.status === 'SUSPENDED');
      if (!shown) {
        for (const x of withStatus) {
          if (await tx.commitments.owes(x.c.id)) {
            shown = x;
            break;
          }
        }
      }
      const outstanding = formatUsd(await tx.commitments.outstandingTotal(workspaceId));
      if (!shown) return { commitment: null, current_period: null, adjustments: [], outstanding_total_usdt: outstanding };
      return {
        commitment: commitmentView(shown.c, shown.status),
        current_period: shown.status === 'ENDED' ? null : await this.currentPeriod(tx, shown.c, now),
        adjustments: (await tx.commitments.adjustments(workspaceId, ADJUSTMENTS_SHOWN)).map(adjustmentView),
        outstanding_total_usdt: outstanding,
      };
    });
  }

  /** The month so far; null when the commitment covers none of its days. */
  private async currentPeriod(tx: TxContext, c: Commitment, now: Date): Promise<CurrentPeriodView | null> {
    const month = monthOf(now);
    const covered = daysCovered(c, month);
    if (covered === 0) return null;
    const fees = await tx.ledger.feesCharged(c.workspaceId, networksOfSide('live'), month.start, now);
    const rate = needsEurcRate(fees) ? ((await tx.fx.rate('EURC_USD'))?.ppm ?? null) : null;
    // Without a rate yet, EURC fees cannot be counted: the period shows what can be (indicative anyway).
    const billed = billedUsd(fees, rate, { strict: false });
    const floor = proratedFloor(c.monthlyFloor, covered, daysInMonth(month));
    return {
      period_start: month.start.toISOString(),
      period_end: month.end.toISOString(),
      days_covered: covered,
      days_in_month: daysInMonth(month),
      prorated_floor_usdt: formatUsd(floor),
      billed_fees_usdt: formatUsd(billed),
      remaining_to_floor_usdt: formatUsd(floor > billed ? floor - billed : 0n),
      projected_fees_usdt: formatUsd(projectedFees(billed, month, now)),
      indicative: true,
    };
  }
}
