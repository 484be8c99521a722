// Tables of the reconciliation with the chain (issue 30, docs/operations.md#reconciliation-with-the-chain):
// `chain_reconciliations`, one row per network, asset and run (what the ledger says the
// service holds, what the chain says at the run's block, the difference and the
// transfers and deposits involved), and `payout_holds`, a network whose payouts wait
// for an operator after a difference (released by `ops payouts resume`), and
// `reconciliation_acks`, what the operator looked at then (per network and asset: the
// difference and the items), which does not hold the payouts again.
import { EntitySchema } from '@mikro-orm/core';

export interface ChainReconciliationRow {
  id: string;
  network: string;
  asset: string;
  block: string;
  expected: string;
  onChain: string;
  difference: string;
  involved: unknown;
  at: Date;
}

const units = { type: 'decimal', precision: 78, scale: 0 } as const;

export const ChainReconciliationEntity = new EntitySchema<ChainReconciliationRow>({
  name: 'ChainReconciliation',
  tableName: 'chain_reconciliations',
  indexes: [{ name: 'chain_reconciliations_latest_idx', properties: ['network', 'asset', 'at'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    network: { type: 'text' },
    asset: { type: 'text' },
    block: { type: 'bigint', columnType: 'bigint' },
    expected: units,
    onChain: units,
    difference: units,
    involved: { type: 'json' },
    at: { type: 'Date', columnType: 'timestamptz' },
  },
});

export interface ReconciliationAckRow {
  network: string;
  asset: string;
  difference: string;
  items: unknown;
  at: Date;
}

export const ReconciliationAckEntity = new EntitySchema<ReconciliationAckRow>({
  name: 'ReconciliationAck',
  tableName: 'reconciliation_acks',
  properties: {
    network: { type: 'text', primary: true },
    asset: { type: 'text', primary: true },
    difference: units,
    items: { type: 'json' },
    at: { type: 'Date', columnType: 'timestamptz' },
  },
});

export interface PayoutHoldRow {
  network: string;
  reason: string;
  heldAt: Date;
}

export const PayoutHoldEntity = new EntitySchema<PayoutHoldRow>({
  name: 'PayoutHold',
  tableName: 'payout_holds',
  properties: {
    network: { type: 'text', primary: true },
    reason: { type: 'text' },
    heldAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
