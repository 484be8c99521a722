// Types of POST /v2/fees/quote (docs/api.md#fee-quotes; default schedule:
// docs/api.md#fee-schedule): an indicative price from the engine that settles.
import type { Asset, BaseChain, DecimalString, ResolvedChain } from '../types.js';

export type FeeDirection = 'deposit' | 'withdrawal';

/** charge: `amount` is the gross; gross_up: `amount` is the net wanted. */
export type FeeMode = 'charge' | 'gross_up';

// Unknown values are let through: new ones are added over time (docs/api.md#compatibility).
export type FeeRule = 'PERCENTAGE' | 'MIN_FEE' | 'FLAT' | 'OVERRIDE' | (string & {});
export type FeeWarning =
  | 'BELOW_SWEEP_MINIMUM'
  | 'MIN_FEE_DOMINATES'
  | 'AMOUNT_TOO_SMALL'
  | 'OVERRIDE_EXPIRES_SOON'
  | (string & {});

/** The chain/asset pair must be compatible, else 400 VALIDATION_ERROR. */
export interface QuoteFeeParams {
  direction: FeeDirection;
  chain: BaseChain;
  asset: Asset;
  /** Positive, with at most the asset's places (docs/api.md#amounts); kept a string. */
  amount: DecimalString;
  /** Default charge. */
  mode?: FeeMode;
}

/**
 * Indicative: the binding fee is computed at settlement (the tier follows the
 * 30-day volume, an override can expire). Monetary fields carry the asset's
 * places. The object is open: later versions may add fields.
 */
export interface FeeQuote {
  direction: FeeDirection;
  chain: ResolvedChain;
  asset: Asset;
  mode: FeeMode;
  /** gross in charge mode, net in gross_up: which of the two `amount` is. */
  fee_basis: 'gross' | 'net';
  /** The amount asked, echoed. */
  amount: DecimalString;
  /** What is sent (deposit) or debited (withdrawal). */
  gross: DecimalString;
  /** gross − fee; null when not viable. */
  net: DecimalString | null;
  fee: DecimalString;
  /** fee / gross, as a decimal string. */
  effective_rate: string;
  /** The percentage rate applied, as a decimal string; zero for withdrawals. */
  applied_rate: string;
  /** Deposits only. */
  min_fee?: DecimalString;
  /** Withdrawals only. */
  flat_fee?: DecimalString;
  /** Which rule produced the fee. */
  rule: FeeRule;
  /** A per-workspace override applied. */
  override_applied: boolean;
  /** The fee tier used; null when an override applied. */
  tier: string | null;
  /** False when nothing positive would be left (warning AMOUNT_TOO_SMALL); a quote never fails for that. */
  viable: boolean;
  indicative: true;
  /** Advisory codes; treat unknown ones leniently. */
  warnings: FeeWarning[];
}
