// Everything the fee engine needs about a workspace now: the tiers, its
// override, its 30-day confirmed volume. Used by quotes and by settlement, so
// both price with the same inputs.
import { DEFAULT_ASSET_FEES, type AssetFees, type FeeContext } from '../../domain/fees/fee-schedule.js';
import { BASE_CHAINS, CHAIN_ASSETS, networkFor, networksOfSide, type Asset, type NetworkSide } from '../../domain/money/networks.js';
import type { TxContext } from '../../domain/ports.js';

export const VOLUME_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

export async function loadFeeContext(tx: TxContext, workspaceId: string, side: NetworkSide, now: Date): Promise<FeeContext> {
  // One after another: a transaction is one connection, which runs one query at a time.
  const tiers = await tx.fees.tiers();
  const override = await tx.fees.override(workspaceId);
  const volumeUsd = await tx.ledger.volumeUsd(workspaceId, networksOfSide(side), new Date(now.getTime() - VOLUME_WINDOW_MS));
  // The operator's sweep minimums of the side's networks (ops sweep policy set) replace the defaults (BELOW_SWEEP_MINIMUM).
  const policies = await tx.sweeps.policies();
  const assetFees = { ...DEFAULT_ASSET_FEES } as Record<Asset, AssetFees>;
  for (const chain of BASE_CHAINS) {
    for (const asset of CHAIN_ASSETS[chain]) {
      const set = policies.find((p) => p.network === networkFor(chain, side) && p.asset === asset);
      if (set) assetFees[asset] = { ...assetFees[asset], sweepMinimum: set.minimum };
    }
  }
  return { tiers, override, volumeUsd, assetFees, now };
}
