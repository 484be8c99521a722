// What the API, the webhook and the operator see of a commitment and its
// monthly adjustments (docs/api.md#fee-commitment): USD amounts as decimal
// strings with 6 places, times as ISO strings.
import { formatUsd, type Adjustment, type Commitment, type CommitmentStatus } from '../../domain/commitments/commitment.js';

export interface CommitmentView {
  id: string;
  monthly_floor_usdt: string;
  settlement_asset: Commitment['settlementAsset'];
  starts_at: string;
  ends_at: string | null;
  status: CommitmentStatus;
  auto_debit: boolean;
  contract_reference: string;
}

export interface AdjustmentView {
  id: string;
  period_start: string;
  period_end: string;
  prorated_floor_usdt: string;
  billed_fees_usdt: string;
  delta_usdt: string;
  recovery_mode: Adjustment['recoveryMode'];
  debited_usdt: string;
  outstanding_usdt: string;
  status: Adjustment['status'];
  settled_at: string | null;
}

/** `status` is the effective one (a commitment whose end has passed is ENDED). */
export const commitmentView = (c: Commitment, status: CommitmentStatus): CommitmentView => ({
  id: c.id,
  monthly_floor_usdt: formatUsd(c.monthlyFloor),
  settlement_asset: c.settlementAsset,
  starts_at: c.startsAt.toISOString(),
  ends_at: c.endsAt?.toISOString() ?? null,
  status,
  auto_debit: c.autoDebit,
  contract_reference: c.contractReference,
});

export const adjustmentView = (a: Adjustment): AdjustmentView => ({
  id: a.id,
  period_start: a.periodStart.toISOString(),
  period_end: a.periodEnd.toISOString(),
  prorated_floor_usdt: formatUsd(a.proratedFloor),
  billed_fees_usdt: formatUsd(a.billedFees),
  delta_usdt: formatUsd(a.delta),
  recovery_mode: a.recoveryMode,
  debited_usdt: formatUsd(a.debited),
  outstanding_usdt: formatUsd(a.outstanding),
  status: a.status,
  settled_at: a.settledAt?.toISOString() ?? null,
});

/** The data of COMMITMENT_ADJUSTMENT_EMITTED: the adjustment with its commitment and workspace. */
export const adjustmentEventData = (a: Adjustment) => ({ commitment_id: a.commitmentId, workspace_id: a.workspaceId, ...adjustmentView(a) });
