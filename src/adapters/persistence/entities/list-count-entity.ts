// Table `list_counts`: the `total` of the list endpoints (ADR 0036). Triggers
// on deposits, withdrawals, wallets, customers and webhook_deliveries append
// one signed delta per group a statement changed (never a hot row to lock);
// the dispatcher folds each owner's deltas into one row per group every
// minute. A list's total is the sum over its owner's rows that match.
import { EntitySchema } from '@mikro-orm/core';

export interface ListCount {
  id: string;
  /** The counted table: deposits, withdrawals, wallets, customers, webhook_deliveries. */
  list: string;
  /** The workspace (the webhook endpoint for webhook_deliveries). */
  owner: string;
  /** The network ('live' or 'test' for customers; '' where the list has none). */
  network: string;
  status: string;
  /** The asset for wallets; '' elsewhere. */
  asset: string;
  n: string;
}

export const ListCountEntity = new EntitySchema<ListCount>({
  name: 'ListCount',
  tableName: 'list_counts',
  indexes: [{ name: 'list_counts_owner_idx', properties: ['list', 'owner'] }],
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    list: { type: 'text' },
    owner: { type: 'uuid' },
    network: { type: 'text', default: '' },
    status: { type: 'text', default: '' },
    asset: { type: 'text', default: '' },
    n: { type: 'bigint' },
  },
});
