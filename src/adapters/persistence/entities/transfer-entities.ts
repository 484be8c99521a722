// Tables of the outgoing-transfer pipeline (ADR 0025) and the sweeps
// (ADR 0027): `outgoing_transfers` (one row per transfer, with its nonce
// fixed at the first signing), `transfer_attempts` (every signed form, the
// signed bytes recorded before they are broadcast), `sender_nonces` (the next
// nonce per network and sending address, taken under its row lock),
// `sweeps` (one per batch of a wallet's deposits moved to the treasury;
// at most one open per wallet) and `sweep_policies` (the operator's minimum
// and schedule per network and asset).
import { EntitySchema } from '@mikro-orm/core';

const units = { type: 'decimal', precision: 78, scale: 0 } as const;
const time = { type: 'Date', columnType: 'timestamptz' } as const;

export interface OutgoingTransferRow {
  id: string;
  kind: string;
  network: string;
  asset: string;
  fromAddress: string;
  fromPath: string;
  toAddress: string;
  amount: string;
  ownerId: string | null;
  gasLimit: string | null;
  feeCap: string | null;
  status: string;
  nonce: string | null;
  includedTxid: string | null;
  includedBlock: string | null;
  includedReverted: boolean | null;
  feePaid: string | null;
  failure: string | null;
  requestedAt: Date;
  broadcastAt: Date | null;
  confirmedAt: Date | null;
  updatedAt: Date;
}

export const OutgoingTransferEntity = new EntitySchema<OutgoingTransferRow>({
  name: 'OutgoingTransfer',
  tableName: 'outgoing_transfers',
  indexes: [
    { name: 'outgoing_transfers_work_idx', properties: ['network', 'status', 'requestedAt'] },
    { name: 'outgoing_transfers_sender_idx', properties: ['network', 'fromAddress', 'status'] },
    { name: 'outgoing_transfers_owner_idx', properties: ['ownerId'] },
  ],
  uniques: [{ name: 'outgoing_transfers_sender_nonce_unique', properties: ['network', 'fromAddress', 'nonce'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    kind: { enum: true, items: ['GAS_TOPUP', 'SWEEP', 'WITHDRAWAL', 'FAUCET', 'COLD_FORWARD', 'UNEXPECTED_RETURN', 'ENERGY_STAKE', 'ENERGY_DELEGATE', 'ENERGY_RECLAIM', 'ENERGY_UNSTAKE', 'ENERGY_WITHDRAW'] },
    network: { type: 'text' },
    asset: { type: 'text' },
    fromAddress: { type: 'text' },
    fromPath: { type: 'text' },
    toAddress: { type: 'text' },
    amount: units,
    ownerId: { type: 'uuid', nullable: true },
    gasLimit: { ...units, nullable: true },
    feeCap: { ...units, nullable: true },
    status: { enum: true, items: ['REQUESTED', 'SIGNED', 'BROADCAST', 'CONFIRMING', 'CONFIRMED', 'FAILED'] },
    nonce: { ...units, nullable: true },
    includedTxid: { type: 'text', nullable: true },
    includedBlock: { type: 'bigint', columnType: 'bigint', nullable: true },
    includedReverted: { type: 'boolean', nullable: true },
    feePaid: { ...units, nullable: true },
    failure: { type: 'text', nullable: true },
    requestedAt: time,
    broadcastAt: { ...time, nullable: true },
    confirmedAt: { ...time, nullable: true },
    updatedAt: time,
  },
});

export interface TransferAttemptRow {
  transferId: string;
  seq: number;
  txid: string;
  raw: string;
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
  expiresAt: string | null;
  signedAt: Date;
  refusedAt: Date | null;
}

export const TransferAttemptEntity = new EntitySchema<TransferAttemptRow>({
  name: 'TransferAttempt',
  tableName: 'transfer_attempts',
  uniques: [{ name: 'transfer_attempts_txid_unique', properties: ['txid'] }],
  properties: {
    transferId: { kind: 'm:1', entity: 'OutgoingTransfer', mapToPk: true, primary: true, fieldName: 'transfer_id', deleteRule: 'cascade' } as never,
    seq: { type: 'integer', primary: true },
    txid: { type: 'text' },
    raw: { type: 'text' },
    maxFeePerGas: { ...units, nullable: true },
    maxPriorityFeePerGas: { ...units, nullable: true },
    expiresAt: { type: 'bigint', columnType: 'bigint', nullable: true },
    signedAt: time,
    refusedAt: { ...time, nullable: true },
  },
});

export interface SenderNonceRow {
  network: string;
  address: string;
  nextNonce: string;
}

export const SenderNonceEntity = new EntitySchema<SenderNonceRow>({
  name: 'SenderNonce',
  tableName: 'sender_nonces',
  properties: {
    network: { type: 'text', primary: true },
    address: { type: 'text', primary: true },
    nextNonce: units,
  },
});

export interface SweepRow {
  id: string;
  network: string;
  asset: string;
  walletId: string;
  address: string;
  addressPath: string;
  status: string;
  depositTotal: string;
  /** A return sweep: the unexpected arrival it sends back, to whom, and how much (base units on chain). */
  returnOf: string | null;
  returnTo: string | null;
  returnAmount: string | null;
  topUpTransferId: string | null;
  sweepTransferId: string | null;
  failure: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const SweepEntity = new EntitySchema<SweepRow>({
  name: 'Sweep',
  tableName: 'sweeps',
  indexes: [{ name: 'sweeps_work_idx', properties: ['network', 'status'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    network: { type: 'text' },
    asset: { type: 'text' },
    walletId: { kind: 'm:1', entity: 'Wallet', mapToPk: true, fieldName: 'wallet_id', deleteRule: 'no action' } as never,
    address: { type: 'text' },
    addressPath: { type: 'text' },
    status: { enum: true, items: ['WAITING_GAS', 'TOPPING_UP', 'SWEEPING', 'SWEPT', 'FAILED'] },
    depositTotal: units,
    topUpTransferId: { type: 'uuid', nullable: true },
    sweepTransferId: { type: 'uuid', nullable: true },
    failure: { type: 'text', nullable: true },
    returnOf: { type: 'uuid', nullable: true },
    returnTo: { type: 'text', nullable: true },
    returnAmount: { ...units, nullable: true },
    createdAt: time,
    updatedAt: time,
  },
});

export interface SweepPolicyRow {
  network: string;
  asset: string;
  minimum: string;
  intervalSeconds: number;
  lastRunAt: Date | null;
  updatedAt: Date;
}

export const SweepPolicyEntity = new EntitySchema<SweepPolicyRow>({
  name: 'SweepPolicy',
  tableName: 'sweep_policies',
  properties: {
    network: { type: 'text', primary: true },
    asset: { type: 'text', primary: true },
    minimum: units,
    intervalSeconds: { type: 'integer' },
    lastRunAt: { ...time, nullable: true },
    updatedAt: time,
  },
});
