// Table `address_pool`: deposit address indexes taken ahead of the wallets
// that will use them, with their derived addresses (ADR 0009, issue 35). A
// wallet create claims the lowest free one (SKIP LOCKED) instead of queueing
// on the account's row lock; its rollback puts the row back, so no index is
// lost. At most POOL_TARGET (16) rows per account, so fewer unassigned indexes
// than the BIP-44 gap limit of 20 ever stand in a row.
import { EntitySchema } from '@mikro-orm/core';

export interface AddressPoolRow {
  account: number;
  index: number;
  address: string;
}

export const AddressPoolEntity = new EntitySchema<AddressPoolRow>({
  name: 'AddressPool',
  tableName: 'address_pool',
  properties: {
    account: { type: 'integer', primary: true },
    index: { type: 'integer', primary: true },
    address: { type: 'text' },
  },
});
