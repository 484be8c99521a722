// The workspace owner's withdrawal security settings on mainnet
// (docs/operations.md#withdrawal-security), set through the operator tool: a
// destination allowlist (addresses valid on any chain) and per-chain
// beneficiaries, both subject to a cooling-off period from when each was
// added; a per-transaction and a rolling 24-hour limit; and an amount above
// which a withdrawal waits for the owner's approval. Withdrawals enforce them.
import type { PolicyView } from '../webhooks/events.js';

export interface WithdrawalPolicy {
  workspaceId: string;
  coolingOffHours: number | null;
  /** Decimal strings in the withdrawn asset's units (stablecoins count 1:1 as USD). */
  perTxLimit: string | null;
  dailyLimit: string | null;
  approvalAbove: string | null;
  /** How many distinct members must approve a withdrawal above approvalAbove (1 by default). */
  approvalQuorum: number;
  updatedAt: Date;
}

export const QUORUM_MAX = 10;

/** A destination the owner allowed: `chain` null for an allowlist address valid on every chain. */
export interface Beneficiary {
  id: string;
  workspaceId: string;
  chain: string | null;
  address: string;
  addedAt: Date;
}

/** What `policy set` may change; an absent field keeps its value. */
export interface PolicyChange {
  allowlist?: string[];
  coolingOffHours?: number;
  perTxLimit?: string;
  dailyLimit?: string;
  approvalAbove?: string;
  approvalQuorum?: number;
}

export const emptyPolicy = (workspaceId: string, at: Date): WithdrawalPolicy => ({
  workspaceId,
  coolingOffHours: null,
  perTxLimit: null,
  dailyLimit: null,
  approvalAbove: null,
  approvalQuorum: 1,
  updatedAt: at,
});

/** The policy as events carry it. */
export const policyView = (policy: WithdrawalPolicy, allowlist: readonly Beneficiary[]): PolicyView => ({
  allowlist: allowlist.filter((b) => b.chain === null).map((b) => b.address),
  cooling_off_hours: policy.coolingOffHours,
  per_tx_limit: policy.perTxLimit,
  daily_limit: policy.dailyLimit,
  approval_above: policy.approvalAbove,
  approval_quorum: policy.approvalQuorum,
});

/** When a destination added at `addedAt` may first receive a withdrawal (null: no cooling-off). */
export const coolingOffEndsAt = (policy: WithdrawalPolicy | null, addedAt: Date): Date | null =>
  policy?.coolingOffHours ? new Date(addedAt.getTime() + policy.coolingOffHours * 3_600_000) : null;
