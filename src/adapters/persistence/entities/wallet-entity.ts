// Table `wallets`: deposit addresses. external_ref only as ciphertext.
import { EntitySchema } from '@mikro-orm/core';
import { workspaceReference } from './workspace-reference.js';
import type { Wallet } from '../../../domain/wallets/wallet.js';

export const WalletEntity = new EntitySchema<Wallet>({
  name: 'Wallet',
  tableName: 'wallets',
  uniques: [
    { name: 'wallets_address_unique', properties: ['network', 'address'] },
    { name: 'wallets_derivation_unique', properties: ['derivationAccount', 'derivationIndex'] },
  ],
  indexes: [
    { name: 'wallets_list_idx', properties: ['workspaceId', 'network', 'createdAt'] },
    // The first pages of a list, newest first, over all of the side's networks (no sort of every row).
    { name: 'wallets_page_idx', properties: ['workspaceId', 'createdAt', 'id'] },
    // A status's pages on one network; a customer's pages (ADR 0036).
    { name: 'wallets_status_page_idx', properties: ['workspaceId', 'network', 'status', 'createdAt'] },
    { name: 'wallets_customer_idx', properties: ['customerId', 'createdAt'] },
    { name: 'wallets_network_created_idx', properties: ['network', 'createdAt'] },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    network: { type: 'text' },
    asset: { type: 'text' },
    address: { type: 'text' },
    derivationAccount: {
      kind: 'm:1',
      entity: 'HdAccount',
      mapToPk: true,
      fieldName: 'derivation_account',
      deleteRule: 'no action',
    } as never,
    derivationIndex: { type: 'integer' },
    status: { enum: true, items: ['ACTIVE', 'SWEPT', 'ARCHIVED'] },
    customerId: {
      kind: 'm:1',
      entity: 'Customer',
      mapToPk: true,
      fieldName: 'customer_id',
      nullable: true,
      deleteRule: 'no action',
    } as never,
    externalRefCiphertext: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
