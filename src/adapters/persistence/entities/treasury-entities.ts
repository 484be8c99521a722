// Tables of the treasury's custody discipline (issue 31, ADR 0032):
// `treasury_policies`, the operator's cold address, ceiling, target float,
// floor and cooling-off per network and asset, with the cold address change
// waiting for its cooling-off; and `treasury_policy_events`, every change of
// them, kept for good; `refill_cursors`, where each network's chain has been
// read for refills from the cold address.
import { EntitySchema } from '@mikro-orm/core';

const units = { type: 'decimal', precision: 78, scale: 0 } as const;
const time = { type: 'Date', columnType: 'timestamptz' } as const;

export interface TreasuryPolicyRow {
  network: string;
  asset: string;
  coldAddress: string | null;
  ceiling: string;
  targetFloat: string;
  floor: string;
  coolingOffHours: number;
  pendingColdAddress: string | null;
  pendingCoolingOffHours: number | null;
  pendingRequestedAt: Date | null;
  pendingEffectiveAt: Date | null;
  updatedAt: Date;
}

export const TreasuryPolicyEntity = new EntitySchema<TreasuryPolicyRow>({
  name: 'TreasuryPolicy',
  tableName: 'treasury_policies',
  properties: {
    network: { type: 'text', primary: true },
    asset: { type: 'text', primary: true },
    coldAddress: { type: 'text', nullable: true },
    ceiling: units,
    targetFloat: units,
    floor: units,
    coolingOffHours: { type: 'integer' },
    pendingColdAddress: { type: 'text', nullable: true },
    pendingCoolingOffHours: { type: 'integer', nullable: true },
    pendingRequestedAt: { ...time, nullable: true },
    pendingEffectiveAt: { ...time, nullable: true },
    updatedAt: time,
  },
});

export interface TreasuryPolicyEventRow {
  id: string;
  network: string;
  asset: string;
  kind: string;
  detail: unknown;
  at: Date;
}

export const TreasuryPolicyEventEntity = new EntitySchema<TreasuryPolicyEventRow>({
  name: 'TreasuryPolicyEvent',
  tableName: 'treasury_policy_events',
  indexes: [{ name: 'treasury_policy_events_policy_idx', properties: ['network', 'asset', 'at'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    network: { type: 'text' },
    asset: { type: 'text' },
    kind: { type: 'text' },
    detail: { type: 'json' },
    at: time,
  },
});

export interface RefillCursorRow {
  network: string;
  nextBlock: string;
  updatedAt: Date;
}

export const RefillCursorEntity = new EntitySchema<RefillCursorRow>({
  name: 'RefillCursor',
  tableName: 'refill_cursors',
  properties: {
    network: { type: 'text', primary: true },
    nextBlock: { type: 'bigint', columnType: 'bigint' },
    updatedAt: time,
  },
});
