// The fee commitment's tables (issue 17, docs/adr/0030-fee-commitment.md): one
// row per commitment (floor in USD 6-place units, settlement asset, term,
// status), one per pause (suspension), one per settled month (the
// adjustment: floor, billed fees, shortfall, what was debited and what is
// owed), and the operator's exchange rates.
import { EntitySchema } from '@mikro-orm/core';
import { workspaceReference } from './workspace-reference.js';

const usd = { type: 'decimal', precision: 78, scale: 0 } as const;
const time = { type: 'Date', columnType: 'timestamptz' } as const;

export interface CommitmentRow {
  id: string;
  workspaceId: string;
  monthlyFloor: string;
  settlementAsset: string;
  startsAt: Date;
  endsAt: Date | null;
  status: string;
  autoDebit: boolean;
  contractReference: string;
  createdAt: Date;
  updatedAt: Date;
}

export const CommitmentEntity = new EntitySchema<CommitmentRow>({
  name: 'Commitment',
  tableName: 'commitments',
  indexes: [{ name: 'commitments_workspace_idx', properties: ['workspaceId', 'startsAt'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    monthlyFloor: usd,
    settlementAsset: { enum: true, items: ['USDT_TRON', 'USDT_BSC', 'USDT_ETH', 'USDC_ETH', 'EURC_ETH'] },
    startsAt: time,
    endsAt: { ...time, nullable: true },
    status: { enum: true, items: ['ACTIVE', 'SUSPENDED', 'ENDED'] },
    autoDebit: { type: 'boolean' },
    contractReference: { type: 'text' },
    createdAt: time,
    updatedAt: time,
  },
});

export interface CommitmentPauseRow {
  commitmentId: string;
  seq: number;
  fromAt: Date;
  untilAt: Date | null;
}

export const CommitmentPauseEntity = new EntitySchema<CommitmentPauseRow>({
  name: 'CommitmentPause',
  tableName: 'commitment_pauses',
  properties: {
    commitmentId: { kind: 'm:1', entity: 'Commitment', mapToPk: true, primary: true, fieldName: 'commitment_id', deleteRule: 'cascade' } as never,
    seq: { type: 'integer', primary: true },
    fromAt: time,
    untilAt: { ...time, nullable: true },
  },
});

export interface CommitmentAdjustmentRow {
  id: string;
  commitmentId: string;
  workspaceId: string;
  periodStart: Date;
  periodEnd: Date;
  daysCovered: number;
  proratedFloor: string;
  billedFees: string;
  delta: string;
  recoveryMode: string;
  debited: string;
  outstanding: string;
  status: string;
  settledAt: Date | null;
  eurcUsdPpm: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const CommitmentAdjustmentEntity = new EntitySchema<CommitmentAdjustmentRow>({
  name: 'CommitmentAdjustment',
  tableName: 'commitment_adjustments',
  uniques: [{ name: 'commitment_adjustments_month_unique', properties: ['commitmentId', 'periodStart'] }],
  indexes: [{ name: 'commitment_adjustments_workspace_idx', properties: ['workspaceId', 'status'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    commitmentId: { kind: 'm:1', entity: 'Commitment', mapToPk: true, fieldName: 'commitment_id', deleteRule: 'cascade' } as never,
    workspaceId: { type: 'uuid' },
    periodStart: time,
    periodEnd: time,
    daysCovered: { type: 'integer' },
    proratedFloor: usd,
    billedFees: usd,
    delta: usd,
    recoveryMode: { enum: true, items: ['AUTO_DEBIT', 'MANUAL'] },
    debited: usd,
    outstanding: usd,
    status: { enum: true, items: ['NOT_DUE', 'OPEN', 'SETTLED'] },
    settledAt: { ...time, nullable: true },
    eurcUsdPpm: { ...usd, nullable: true },
    createdAt: time,
    updatedAt: time,
  },
});

export interface FxRateRow {
  pair: string;
  ppm: string;
  setAt: Date;
}

export const FxRateEntity = new EntitySchema<FxRateRow>({
  name: 'FxRate',
  tableName: 'fx_rates',
  properties: {
    pair: { type: 'text', primary: true },
    ppm: usd,
    setAt: time,
  },
});
