// Types of the fee commitment (docs/api.md#fee-commitment). USD amounts are decimal strings with 6 places.
import type { DateTimeString } from '../types.js';

export type CommitmentStatus = 'ACTIVE' | 'SUSPENDED' | 'ENDED';
export type AdjustmentStatus = 'NOT_DUE' | 'OPEN' | 'SETTLED';

export interface Commitment {
  id: string;
  monthly_floor_usdt: string;
  /** The stablecoin an automatic debit is taken in. */
  settlement_asset: 'USDT_TRON' | 'USDT_BSC' | 'USDT_ETH' | 'USDC_ETH' | 'EURC_ETH';
  starts_at: DateTimeString;
  ends_at: DateTimeString | null;
  status: CommitmentStatus;
  auto_debit: boolean;
  contract_reference: string;
}

export interface CommitmentPeriod {
  period_start: DateTimeString;
  /** Exclusive. */
  period_end: DateTimeString;
  days_covered: number;
  days_in_month: number;
  prorated_floor_usdt: string;
  billed_fees_usdt: string;
  remaining_to_floor_usdt: string;
  projected_fees_usdt: string;
  indicative: boolean;
}

export interface CommitmentAdjustment {
  id: string;
  period_start: DateTimeString;
  period_end: DateTimeString;
  prorated_floor_usdt: string;
  billed_fees_usdt: string;
  delta_usdt: string;
  recovery_mode: 'AUTO_DEBIT' | 'MANUAL';
  debited_usdt: string;
  outstanding_usdt: string;
  status: AdjustmentStatus;
  settled_at: DateTimeString | null;
}

/** All null and empty when the workspace has no commitment to show. */
export interface CommitmentOverview {
  commitment: Commitment | null;
  /** null when the commitment does not cover the current calendar month. */
  current_period: CommitmentPeriod | null;
  /** Newest first, at most twelve. */
  adjustments: CommitmentAdjustment[];
  /** Everything owed over every commitment of the workspace. */
  outstanding_total_usdt: string;
}
