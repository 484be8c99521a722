// The fee engine (docs/api.md#fee-schedule), pure: the same functions price a
// quote and the fee charged at settlement. Deposits: max(gross × rate,
// minimum), the rate from the workspace's tier or override; withdrawals: a
// flat fee. Fees round up to the asset's precision; net = gross − fee exactly.
import { Amount } from '../money/amount.js';
import type { Asset } from '../money/networks.js';
import { applyRateCeil, formatRate, ratioAsRate, type RatePpm } from '../money/rate.js';
import { OVERRIDE_WARNING_MS, activeOverride, selectTier, type AssetFees, type FeeContext } from './fee-schedule.js';

export type FeeDirection = 'deposit' | 'withdrawal';
export type FeeMode = 'charge' | 'gross_up';
export type FeeRule = 'PERCENTAGE' | 'MIN_FEE' | 'FLAT' | 'OVERRIDE';
export type FeeWarning = 'BELOW_SWEEP_MINIMUM' | 'MIN_FEE_DOMINATES' | 'AMOUNT_TOO_SMALL' | 'OVERRIDE_EXPIRES_SOON';

/** The fee on one gross amount, and why. */
export interface Charge {
  gross: Amount;
  fee: Amount;
  /** gross − fee; zero or less means not viable. */
  net: Amount;
  rule: FeeRule;
  appliedRatePpm: RatePpm;
  minFee: Amount | null;
  flatFee: Amount | null;
  overrideApplied: boolean;
  tier: string | null;
}

/**
 * A withdrawal's fee: the asset's flat fee, whatever the workspace's tier,
 * override or volume (they price deposits only), so a withdrawal request
 * needs nothing of the workspace to be priced. `tier` is for the quote.
 */
export function chargeWithdrawal(gross: Amount, fees: AssetFees, tier: string | null = null): Charge {
  const flat = Amount.ofUnits(gross.asset, fees.withdrawalFlatFee);
  return { gross, fee: flat, net: gross.minus(flat), rule: 'FLAT', appliedRatePpm: 0n, minFee: null, flatFee: flat, overrideApplied: false, tier };
}

export function charge(direction: FeeDirection, gross: Amount, ctx: FeeContext): Charge {
  const asset = gross.asset;
  const fees = ctx.assetFees[asset];
  const override = activeOverride(ctx.override, ctx.now);
  const tier = selectTier(ctx.tiers, ctx.volumeUsd);
  if (direction === 'withdrawal') return chargeWithdrawal(gross, fees, tier.name);
  const ratePpm = override ? override.depositRatePpm : tier.depositRatePpm;
  const percentage = Amount.ofUnits(asset, applyRateCeil(gross.units, ratePpm));
  const minFee = Amount.ofUnits(asset, fees.minDepositFee);
  const minDominates = minFee.units > percentage.units;
  const fee = minDominates ? minFee : percentage;
  return {
    gross,
    fee,
    net: gross.minus(fee),
    rule: minDominates ? 'MIN_FEE' : override ? 'OVERRIDE' : 'PERCENTAGE',
    appliedRatePpm: ratePpm,
    minFee,
    flatFee: null,
    overrideApplied: override !== null,
    tier: override ? null : tier.name,
  };
}

/** The smallest gross whose net is at least `net` (net(gross) never decreases as gross grows). */
export function grossUp(direction: FeeDirection, net: Amount, ctx: FeeContext): Amount {
  const asset: Asset = net.asset;
  const netOf = (units: bigint) => charge(direction, Amount.ofUnits(asset, units), ctx).net.units;
  let lo = net.units;
  let hi = net.units * 2n + ctx.assetFees[asset].minDepositFee + ctx.assetFees[asset].withdrawalFlatFee + 1n;
  while (netOf(hi) < net.units) hi *= 2n;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if (netOf(mid) >= net.units) hi = mid;
    else lo = mid + 1n;
  }
  return Amount.ofUnits(asset, lo);
}

export interface FeeQuote {
  direction: FeeDirection;
  mode: FeeMode;
  feeBasis: 'gross' | 'net';
  amount: Amount;
  charge: Charge;
  effectiveRate: string;
  appliedRate: string;
  viable: boolean;
  warnings: FeeWarning[];
}

export function quote(direction: FeeDirection, mode: FeeMode, amount: Amount, ctx: FeeContext): FeeQuote {
  const gross = mode === 'charge' ? amount : grossUp(direction, amount, ctx);
  const c = charge(direction, gross, ctx);
  const viable = c.net.isPositive();
  const warnings: FeeWarning[] = [];
  if (direction === 'deposit' && gross.units < ctx.assetFees[gross.asset].sweepMinimum) warnings.push('BELOW_SWEEP_MINIMUM');
  if (c.rule === 'MIN_FEE') warnings.push('MIN_FEE_DOMINATES');
  if (!viable) warnings.push('AMOUNT_TOO_SMALL');
  const override = activeOverride(ctx.override, ctx.now);
  if (c.overrideApplied && override && override.expiresAt.getTime() - ctx.now.getTime() <= OVERRIDE_WARNING_MS) {
    warnings.push('OVERRIDE_EXPIRES_SOON');
  }
  return {
    direction,
    mode,
    feeBasis: mode === 'charge' ? 'gross' : 'net',
    amount,
    charge: c,
    effectiveRate: ratioAsRate(c.fee.units, gross.units),
    appliedRate: formatRate(c.appliedRatePpm),
    viable,
    warnings,
  };
}
