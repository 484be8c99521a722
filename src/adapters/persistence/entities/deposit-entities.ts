// Tables of deposits and the chain scanner: `deposits` (one row per
// identity: network, txid, log index, with -1 for a native transfer),
// `chain_cursors` (the next block per network and which chain-worker holds
// the lease), `chain_blocks` (hashes of the recent blocks read, for reorg
// checks) and `screening_denylist` (the operator's denied senders).
import { EntitySchema } from '@mikro-orm/core';
import { workspaceReference } from './workspace-reference.js';

export interface DepositRow {
  id: string;
  workspaceId: string;
  walletId: string;
  customerId: string | null;
  network: string;
  asset: string;
  txid: string;
  logIndex: number;
  fromAddress: string;
  toAddress: string;
  chainAmount: string;
  amount: string;
  blockNumber: string;
  blockHash: string;
  status: string;
  confirmations: number;
  requiredConfirmations: number;
  feeAmount: string | null;
  netAmount: string | null;
  appliedRatePpm: string | null;
  appliedMinFee: string | null;
  detectedAt: Date;
  confirmedAt: Date | null;
  sweptAt: Date | null;
  /** The sweep that moves (or moved) it to the treasury. */
  sweepId: string | null;
  /** Set when a reorg took its block and the node did not return its transfer: the rescan proves it gone or clears it. */
  reorgedOutAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const units = { type: 'decimal', precision: 78, scale: 0 } as const;

export const DepositEntity = new EntitySchema<DepositRow>({
  name: 'Deposit',
  tableName: 'deposits',
  uniques: [{ name: 'deposits_identity_unique', properties: ['network', 'txid', 'logIndex'] }],
  indexes: [
    { name: 'deposits_list_idx', properties: ['workspaceId', 'network', 'createdAt'] },
    // The first pages of a list, newest first, over all of the side's networks (no sort of every row).
    { name: 'deposits_page_idx', properties: ['workspaceId', 'createdAt', 'id'] },
    // A status's pages on one network; a wallet's or a customer's pages (ADR 0036).
    { name: 'deposits_status_page_idx', properties: ['workspaceId', 'network', 'status', 'createdAt'] },
    { name: 'deposits_wallet_idx', properties: ['walletId', 'createdAt'] },
    { name: 'deposits_customer_idx', properties: ['customerId', 'createdAt'] },
    { name: 'deposits_scan_idx', properties: ['network', 'status', 'blockNumber'] },
    { name: 'deposits_sweep_idx', properties: ['sweepId'] },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    walletId: { kind: 'm:1', entity: 'Wallet', mapToPk: true, fieldName: 'wallet_id', deleteRule: 'no action' } as never,
    customerId: { type: 'uuid', nullable: true },
    network: { type: 'text' },
    asset: { type: 'text' },
    txid: { type: 'text' },
    logIndex: { type: 'integer' },
    fromAddress: { type: 'text' },
    toAddress: { type: 'text' },
    chainAmount: units,
    amount: units,
    blockNumber: { type: 'bigint', columnType: 'bigint' },
    blockHash: { type: 'text' },
    status: { enum: true, items: ['DETECTED', 'CONFIRMING', 'CONFIRMED', 'SWEPT', 'FAILED', 'FLAGGED', 'REJECTED'] },
    confirmations: { type: 'integer' },
    requiredConfirmations: { type: 'integer' },
    feeAmount: { ...units, nullable: true },
    netAmount: { ...units, nullable: true },
    appliedRatePpm: { ...units, nullable: true },
    appliedMinFee: { ...units, nullable: true },
    detectedAt: { type: 'Date', columnType: 'timestamptz' },
    confirmedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    sweptAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    sweepId: { type: 'uuid', nullable: true },
    reorgedOutAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    updatedAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

export interface ChainCursorRow {
  network: string;
  nextBlock: string | null;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  updatedAt: Date;
}

export const ChainCursorEntity = new EntitySchema<ChainCursorRow>({
  name: 'ChainCursor',
  tableName: 'chain_cursors',
  properties: {
    network: { type: 'text', primary: true },
    nextBlock: { type: 'bigint', columnType: 'bigint', nullable: true },
    leaseOwner: { type: 'text', nullable: true },
    leaseUntil: { type: 'Date', columnType: 'timestamptz', nullable: true },
    updatedAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

export interface ChainBlockRow {
  network: string;
  number: string;
  hash: string;
  parentHash: string;
}

export const ChainBlockEntity = new EntitySchema<ChainBlockRow>({
  name: 'ChainBlock',
  tableName: 'chain_blocks',
  properties: {
    network: { type: 'text', primary: true },
    number: { type: 'bigint', columnType: 'bigint', primary: true },
    hash: { type: 'text' },
    parentHash: { type: 'text' },
  },
});

export interface ScreeningEntryRow {
  chain: string;
  address: string;
  createdAt: Date;
}

export const ScreeningEntryEntity = new EntitySchema<ScreeningEntryRow>({
  name: 'ScreeningEntry',
  tableName: 'screening_denylist',
  properties: {
    chain: { type: 'text', primary: true },
    address: { type: 'text', primary: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
