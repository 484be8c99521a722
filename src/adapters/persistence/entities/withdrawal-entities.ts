// The `withdrawals` table (issue 16, docs/api.md#withdrawals): one row per
// withdrawal request, with the amount, the flat fee and the net in API
// precision, its lifecycle status, the idempotency key it was created under
// (header or deprecated body field), and the outgoing transfer that pays it
// out once the chain-worker picked it up (at most one per withdrawal).
import { EntitySchema } from '@mikro-orm/core';
import { workspaceReference } from './workspace-reference.js';

const units = { type: 'decimal', precision: 78, scale: 0 } as const;
const time = { type: 'Date', columnType: 'timestamptz' } as const;

export interface WithdrawalRow {
  id: string;
  workspaceId: string;
  network: string;
  asset: string;
  amount: string;
  fee: string;
  netAmount: string;
  destination: string;
  status: string;
  idempotencyKey: string | null;
  transferId: string | null;
  txid: string | null;
  failure: string | null;
  requestedAt: Date;
  confirmedAt: Date | null;
  updatedAt: Date;
}

export const WithdrawalEntity = new EntitySchema<WithdrawalRow>({
  name: 'Withdrawal',
  tableName: 'withdrawals',
  indexes: [
    { name: 'withdrawals_list_idx', properties: ['workspaceId', 'network', 'requestedAt'] },
    // The first pages of a list, newest first, over all of the side's networks (no sort of every row).
    { name: 'withdrawals_page_idx', properties: ['workspaceId', 'requestedAt', 'id'] },
    // A status's pages on one network (ADR 0036).
    { name: 'withdrawals_status_page_idx', properties: ['workspaceId', 'network', 'status', 'requestedAt'] },
    { name: 'withdrawals_work_idx', properties: ['network', 'status', 'requestedAt'] },
  ],
  uniques: [{ name: 'withdrawals_transfer_unique', properties: ['transferId'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    network: { type: 'text' },
    asset: { type: 'text' },
    amount: units,
    fee: units,
    netAmount: units,
    destination: { type: 'text' },
    status: { enum: true, items: ['PENDING_APPROVAL', 'PENDING', 'UNDER_REVIEW', 'PROCESSING', 'CONFIRMING', 'CONFIRMED', 'FAILED', 'CANCELLED'] },
    idempotencyKey: { type: 'text', nullable: true },
    transferId: { type: 'uuid', nullable: true },
    txid: { type: 'text', nullable: true },
    failure: { type: 'text', nullable: true },
    requestedAt: time,
    confirmedAt: { ...time, nullable: true },
    updatedAt: time,
  },
});
