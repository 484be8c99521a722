// The sandbox faucet's tables (issue 17, docs/adr/0029-sandbox-faucet.md):
// one row per drip (the wallet it goes to, its status), one per item (asset,
// amount in API precision, status, the outgoing transfer that sends it), and
// the operator's limits (per asset, and for the whole faucet) where they
// differ from the defaults.
import { EntitySchema } from '@mikro-orm/core';
import { workspaceReference } from './workspace-reference.js';

const units = { type: 'decimal', precision: 78, scale: 0 } as const;
const time = { type: 'Date', columnType: 'timestamptz' } as const;

export interface FaucetDripRow {
  id: string;
  workspaceId: string;
  network: string;
  walletId: string;
  address: string;
  status: string;
  createdAt: Date;
  updatedAt: Date;
}

export const FaucetDripEntity = new EntitySchema<FaucetDripRow>({
  name: 'FaucetDrip',
  tableName: 'faucet_drips',
  indexes: [
    { name: 'faucet_drips_workspace_idx', properties: ['workspaceId', 'createdAt'] },
    { name: 'faucet_drips_work_idx', properties: ['network', 'status', 'createdAt'] },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    network: { type: 'text' },
    walletId: { type: 'uuid' },
    address: { type: 'text' },
    status: { enum: true, items: ['QUEUED', 'SENDING', 'COMPLETED', 'FAILED'] },
    createdAt: time,
    updatedAt: time,
  },
});

export interface FaucetDripItemRow {
  dripId: string;
  seq: number;
  asset: string;
  amount: string;
  status: string;
  transferId: string | null;
}

export const FaucetDripItemEntity = new EntitySchema<FaucetDripItemRow>({
  name: 'FaucetDripItem',
  tableName: 'faucet_drip_items',
  uniques: [{ name: 'faucet_drip_items_transfer_unique', properties: ['transferId'] }],
  properties: {
    dripId: { kind: 'm:1', entity: 'FaucetDrip', mapToPk: true, primary: true, fieldName: 'drip_id', deleteRule: 'cascade' } as never,
    seq: { type: 'integer', primary: true },
    asset: { type: 'text' },
    amount: units,
    status: { enum: true, items: ['QUEUED', 'SENT', 'CONFIRMED', 'FAILED'] },
    transferId: { type: 'uuid', nullable: true },
  },
});

export interface FaucetAssetLimitRow {
  asset: string;
  defaultAmount: string;
  cap: string;
  budget: string | null;
  updatedAt: Date;
}

export const FaucetAssetLimitEntity = new EntitySchema<FaucetAssetLimitRow>({
  name: 'FaucetAssetLimit',
  tableName: 'faucet_asset_limits',
  properties: {
    asset: { type: 'text', primary: true },
    defaultAmount: units,
    cap: units,
    budget: { ...units, nullable: true },
    updatedAt: time,
  },
});

export interface FaucetSettingsRow {
  id: number;
  maxItems: number;
  dripsPerHour: number;
  updatedAt: Date;
}

/** One row (id 1) once the operator changed the faucet-wide limits. */
export const FaucetSettingsEntity = new EntitySchema<FaucetSettingsRow>({
  name: 'FaucetSettings',
  tableName: 'faucet_settings',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: false },
    maxItems: { type: 'integer' },
    dripsPerHour: { type: 'integer' },
    updatedAt: time,
  },
});
