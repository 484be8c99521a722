// The fee schedule of docs/api.md#fee-schedule (operator-configurable; these
// are the defaults): deposit tiers by 30-day volume, per-asset minimum
// deposit fee, flat withdrawal fee and sweep minimum, and per-workspace
// overrides with expiry.
import type { Asset } from '../money/networks.js';
import type { RatePpm } from '../money/rate.js';

export interface FeeTier {
  name: string;
  /** Lower bound of the tier's 30-day volume, USD in 6-place units. */
  minVolumeUsd: bigint;
  depositRatePpm: RatePpm;
}

export interface FeeOverride {
  workspaceId: string;
  depositRatePpm: RatePpm;
  expiresAt: Date;
}

export interface AssetFees {
  /** In the asset's API units. */
  minDepositFee: bigint;
  withdrawalFlatFee: bigint;
  sweepMinimum: bigint;
}

const usd = (whole: number): bigint => BigInt(whole) * 1_000_000n;

export const DEFAULT_TIERS: readonly FeeTier[] = [
  { name: 'STANDARD', minVolumeUsd: 0n, depositRatePpm: 9000n },
  { name: 'GROWTH', minVolumeUsd: usd(100_000), depositRatePpm: 6000n },
  { name: 'SCALE', minVolumeUsd: usd(1_000_000), depositRatePpm: 3500n },
];

const six = (s: string): bigint => {
  const [w, f = ''] = s.split('.');
  return BigInt(w!) * 1_000_000n + BigInt(f.padEnd(6, '0'));
};
const eighteen = (s: string): bigint => {
  const [w, f = ''] = s.split('.');
  return BigInt(w!) * 10n ** 18n + BigInt(f.padEnd(18, '0'));
};

export const DEFAULT_ASSET_FEES: Record<Asset, AssetFees> = {
  USDT_TRON: { minDepositFee: six('1'), withdrawalFlatFee: six('2'), sweepMinimum: six('10') },
  USDT_BSC: { minDepositFee: six('0.2'), withdrawalFlatFee: six('0.5'), sweepMinimum: six('5') },
  USDT_ETH: { minDepositFee: six('3'), withdrawalFlatFee: six('5'), sweepMinimum: six('50') },
  USDC_ETH: { minDepositFee: six('3'), withdrawalFlatFee: six('5'), sweepMinimum: six('50') },
  EURC_ETH: { minDepositFee: six('3'), withdrawalFlatFee: six('5'), sweepMinimum: six('50') },
  ETH: { minDepositFee: eighteen('0.0005'), withdrawalFlatFee: eighteen('0.001'), sweepMinimum: eighteen('0.01') },
  BNB: { minDepositFee: eighteen('0.0005'), withdrawalFlatFee: eighteen('0.0005'), sweepMinimum: eighteen('0.01') },
};

/** An override warns this long before it ends (OVERRIDE_EXPIRES_SOON). */
export const OVERRIDE_WARNING_MS = 7 * 24 * 60 * 60 * 1000;

/** Everything the engine needs about one workspace at one moment. */
export interface FeeContext {
  tiers: readonly FeeTier[];
  override: FeeOverride | null;
  /** 30-day confirmed volume, USD in 6-place units. */
  volumeUsd: bigint;
  assetFees: Record<Asset, AssetFees>;
  now: Date;
}

/**
 * The tier whose lower bound is the highest one the volume reaches; below
 * every bound (an operator left no tier at 0), the lowest tier, never a
 * cheaper one the workspace has not earned.
 */
export function selectTier(tiers: readonly FeeTier[], volumeUsd: bigint): FeeTier {
  const reached = tiers.filter((t) => t.minVolumeUsd <= volumeUsd);
  if (reached.length === 0) return tiers.reduce((low, t) => (t.minVolumeUsd < low.minVolumeUsd ? t : low));
  return reached.reduce((best, t) => (t.minVolumeUsd > best.minVolumeUsd ? t : best));
}

export const activeOverride = (o: FeeOverride | null, now: Date): FeeOverride | null =>
  o && o.expiresAt.getTime() > now.getTime() ? o : null;
