// Table `customers`: sub-accounts of a workspace, per network side.
import { EntitySchema } from '@mikro-orm/core';
import { workspaceReference } from './workspace-reference.js';
import type { Customer } from '../../../domain/customers/customer.js';

export const CustomerEntity = new EntitySchema<Customer>({
  name: 'Customer',
  tableName: 'customers',
  uniques: [{ name: 'customers_external_ref_unique', properties: ['workspaceId', 'side', 'externalRef'] }],
  indexes: [{ name: 'customers_list_idx', properties: ['workspaceId', 'side', 'createdAt'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    side: { enum: true, items: ['live', 'test'] },
    externalRef: { type: 'text' },
    label: { type: 'text', nullable: true },
    // json, not jsonb: metadata is opaque (docs/api.md#customers) and comes back as sent, key order included.
    metadata: { type: 'json', columnType: 'json', nullable: true },
    status: { enum: true, items: ['ACTIVE', 'ARCHIVED'] },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    updatedAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
