// Tables of the double-entry ledger: `ledger_accounts` (with the cached
// balance), `journal_entries` (unique reference per business effect) and
// `postings` (signed NUMERIC(78,0) amounts in API base units).
import { EntitySchema } from '@mikro-orm/core';

export interface LedgerAccountRow {
  id: number;
  owner: string;
  kind: string;
  network: string;
  asset: string;
  balance: string;
}

export const LedgerAccountEntity = new EntitySchema<LedgerAccountRow>({
  name: 'LedgerAccount',
  tableName: 'ledger_accounts',
  uniques: [{ name: 'ledger_accounts_identity_unique', properties: ['owner', 'kind', 'network', 'asset'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    owner: { type: 'text' },
    kind: { enum: true, items: ['AVAILABLE', 'LOCKED', 'REVENUE', 'GAS', 'TREASURY', 'FAUCET', 'EXTERNAL', 'RECEIVABLE', 'COLD', 'COLD_IN_TRANSIT'] },
    network: { type: 'text' },
    asset: { type: 'text' },
    balance: { type: 'decimal', precision: 78, scale: 0, default: 0 },
  },
});

export interface JournalEntryRow {
  id: string;
  kind: string;
  reference: string;
  workspaceId: string | null;
  network: string;
  asset: string;
  createdAt: Date;
}

export const JournalEntryEntity = new EntitySchema<JournalEntryRow>({
  name: 'JournalEntry',
  tableName: 'journal_entries',
  uniques: [{ name: 'journal_entries_reference_unique', properties: ['reference'] }],
  indexes: [{ name: 'journal_entries_workspace_idx', properties: ['workspaceId', 'kind', 'createdAt'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    kind: { type: 'text' },
    reference: { type: 'text' },
    workspaceId: { type: 'uuid', nullable: true },
    network: { type: 'text' },
    asset: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

export interface PostingRow {
  id: number;
  entryId: string;
  accountId: number;
  amount: string;
}

export const PostingEntity = new EntitySchema<PostingRow>({
  name: 'Posting',
  tableName: 'postings',
  indexes: [
    { name: 'postings_account_idx', properties: ['accountId'] },
    { name: 'postings_entry_idx', properties: ['entryId'] },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    entryId: { kind: 'm:1', entity: 'JournalEntry', mapToPk: true, fieldName: 'entry_id', deleteRule: 'no action' } as never,
    accountId: { kind: 'm:1', entity: 'LedgerAccount', mapToPk: true, fieldName: 'account_id', deleteRule: 'no action' } as never,
    amount: { type: 'decimal', precision: 78, scale: 0 },
  },
});
