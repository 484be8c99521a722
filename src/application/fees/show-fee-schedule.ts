// The fee schedule a workspace is on, for the dashboard (issue 32): the
// operator's tiers, the one its 30-day volume reaches, an override in force,
// and the per-asset minimum deposit fee, flat withdrawal fee and sweep
// minimum, from the same context the fee engine prices with (loadFeeContext).
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { activeOverride, selectTier, type AssetFees, type FeeOverride, type FeeTier } from '../../domain/fees/fee-schedule.js';
import type { Asset } from '../../domain/money/networks.js';
import type { RatePpm } from '../../domain/money/rate.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { loadFeeContext } from './fee-context.js';

export interface FeeScheduleView {
  tiers: readonly FeeTier[];
  /** The tier the 30-day volume reaches. */
  tier: FeeTier;
  override: FeeOverride | null;
  /** 30-day confirmed volume, USD in 6-place units. */
  volumeUsd: bigint;
  /** The deposit rate applied now: the override's, else the tier's. */
  depositRatePpm: RatePpm;
  assetFees: Record<Asset, AssetFees>;
}

@injectable()
export class ShowFeeSchedule {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal): Promise<FeeScheduleView> {
    requireScope(principal, 'fees:read');
    const now = this.clock.now();
    const ctx = await this.uow.run((tx) => loadFeeContext(tx, principal.workspaceId, principal.side, now));
    const tier = selectTier(ctx.tiers, ctx.volumeUsd);
    const override = activeOverride(ctx.override, now);
    return { tiers: ctx.tiers, tier, override, volumeUsd: ctx.volumeUsd, depositRatePpm: override?.depositRatePpm ?? tier.depositRatePpm, assetFees: ctx.assetFees };
  }
}
