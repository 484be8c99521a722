// FeeConfigRepo over MikroORM: the operator's tiers (the defaults of
// docs/api.md#fee-schedule while none is configured) and per-workspace
// overrides.
import type { EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_TIERS, type FeeOverride, type FeeTier } from '../../domain/fees/fee-schedule.js';
import type { FeeConfigRepo } from '../../domain/ports.js';
import { FeeOverrideEntity, FeeTierEntity } from './entities/index.js';

export class MikroFeeConfigRepo implements FeeConfigRepo {
  constructor(private readonly em: EntityManager) {}

  async tiers(): Promise<FeeTier[]> {
    const rows = await this.em.find(FeeTierEntity, {}, { orderBy: { minVolumeUsd: 'asc' } });
    if (rows.length === 0) return DEFAULT_TIERS.map((t) => ({ ...t }));
    return rows.map((r) => ({ name: r.name, minVolumeUsd: BigInt(r.minVolumeUsd), depositRatePpm: BigInt(r.depositRatePpm) }));
  }

  async setTier(tier: FeeTier): Promise<void> {
    // The first change starts from the defaults, so the other tiers keep theirs.
    if ((await this.em.count(FeeTierEntity, {})) === 0) {
      for (const t of DEFAULT_TIERS) await this.upsertTier(t);
    }
    await this.upsertTier(tier);
  }

  private async upsertTier(t: FeeTier): Promise<void> {
    await this.em.upsert(FeeTierEntity, {
      name: t.name,
      minVolumeUsd: t.minVolumeUsd.toString(),
      depositRatePpm: Number(t.depositRatePpm),
    });
  }

  async override(workspaceId: string): Promise<FeeOverride | null> {
    const row = await this.em.findOne(FeeOverrideEntity, { workspaceId });
    return row ? { workspaceId, depositRatePpm: BigInt(row.depositRatePpm), expiresAt: row.expiresAt } : null;
  }

  async setOverride(o: FeeOverride): Promise<void> {
    await this.em.upsert(FeeOverrideEntity, {
      workspaceId: o.workspaceId,
      depositRatePpm: Number(o.depositRatePpm),
      expiresAt: o.expiresAt,
    });
  }

  async clearOverride(workspaceId: string): Promise<boolean> {
    return (await this.em.nativeDelete(FeeOverrideEntity, { workspaceId })) > 0;
  }
}
