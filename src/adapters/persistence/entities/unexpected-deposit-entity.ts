// `unexpected_deposits` (issue 31, ADR 0032): money that arrived at a deposit
// address in another asset than its wallet's, kept apart from deposits (one
// row per identity: network, txid, log index, -1 for a native transfer) until
// the operator credits it (deposit_id) or returns it (return_transfer_id).
import { EntitySchema } from '@mikro-orm/core';
import { workspaceReference } from './workspace-reference.js';

export interface UnexpectedDepositRow {
  id: string;
  network: string;
  asset: string;
  walletId: string;
  workspaceId: string;
  walletAsset: string;
  txid: string;
  logIndex: number;
  fromAddress: string;
  toAddress: string;
  chainAmount: string;
  blockNumber: string;
  blockHash: string;
  status: string;
  depositId: string | null;
  returnTransferId: string | null;
  detectedAt: Date;
  resolvedAt: Date | null;
}

export const UnexpectedDepositEntity = new EntitySchema<UnexpectedDepositRow>({
  name: 'UnexpectedDeposit',
  tableName: 'unexpected_deposits',
  uniques: [{ name: 'unexpected_deposits_identity_unique', properties: ['network', 'txid', 'logIndex'] }],
  indexes: [
    { name: 'unexpected_deposits_status_idx', properties: ['status', 'detectedAt'] },
    { name: 'unexpected_deposits_deposit_idx', properties: ['depositId'] },
    { name: 'unexpected_deposits_return_idx', properties: ['returnTransferId'] },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    network: { type: 'text' },
    asset: { type: 'text' },
    walletId: { kind: 'm:1', entity: 'Wallet', mapToPk: true, fieldName: 'wallet_id', deleteRule: 'no action' } as never,
    workspaceId: workspaceReference(),
    walletAsset: { type: 'text' },
    txid: { type: 'text' },
    logIndex: { type: 'integer' },
    fromAddress: { type: 'text' },
    toAddress: { type: 'text' },
    chainAmount: { type: 'decimal', precision: 78, scale: 0 },
    blockNumber: { type: 'bigint', columnType: 'bigint' },
    blockHash: { type: 'text' },
    status: { enum: true, items: ['LISTED', 'CREDITED', 'RETURNING', 'RETURNED'] },
    depositId: { type: 'uuid', nullable: true },
    returnTransferId: { type: 'uuid', nullable: true },
    detectedAt: { type: 'Date', columnType: 'timestamptz' },
    resolvedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});
