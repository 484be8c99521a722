// Table `hd_accounts`: the BIP-44 account of each (workspace, network), from
// one global sequence (the serial primary key), and the next free address
// index in it, taken under the row lock of an update
// (docs/operations.md#custody-and-address-derivation).
import { EntitySchema } from '@mikro-orm/core';
import { workspaceReference } from './workspace-reference.js';

export interface HdAccount {
  account: number;
  workspaceId: string;
  network: string;
  nextIndex: number;
}

export const HdAccountEntity = new EntitySchema<HdAccount>({
  name: 'HdAccount',
  tableName: 'hd_accounts',
  uniques: [{ name: 'hd_accounts_workspace_network_unique', properties: ['workspaceId', 'network'] }],
  properties: {
    account: { type: 'integer', primary: true, autoincrement: true },
    workspaceId: workspaceReference(),
    network: { type: 'text' },
    nextIndex: { type: 'integer', default: 0 },
  },
});
