// Tables of the operator's fee configuration: `fee_tiers` (empty means the
// defaults of docs/api.md#fee-schedule) and `fee_overrides` (one per
// workspace, with expiry).
import { EntitySchema } from '@mikro-orm/core';

export interface FeeTierRow {
  name: string;
  minVolumeUsd: string;
  depositRatePpm: number;
}

export const FeeTierEntity = new EntitySchema<FeeTierRow>({
  name: 'FeeTier',
  tableName: 'fee_tiers',
  properties: {
    name: { type: 'text', primary: true },
    minVolumeUsd: { type: 'decimal', precision: 78, scale: 0 },
    depositRatePpm: { type: 'integer' },
  },
});

export interface FeeOverrideRow {
  workspaceId: string;
  depositRatePpm: number;
  expiresAt: Date;
}

export const FeeOverrideEntity = new EntitySchema<FeeOverrideRow>({
  name: 'FeeOverride',
  tableName: 'fee_overrides',
  properties: {
    workspaceId: { kind: '1:1', entity: 'Workspace', primary: true, mapToPk: true, owner: true, fieldName: 'workspace_id', deleteRule: 'cascade' } as never,
    depositRatePpm: { type: 'integer' },
    expiresAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
