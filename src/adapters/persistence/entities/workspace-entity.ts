// Table `workspaces`: one row per client of the service.
import { EntitySchema } from '@mikro-orm/core';
import type { Workspace } from '../../../domain/workspaces/workspace.js';

export const WorkspaceEntity = new EntitySchema<Workspace>({
  name: 'Workspace',
  tableName: 'workspaces',
  properties: {
    id: { type: 'uuid', primary: true },
    name: { type: 'text' },
    status: { enum: true, items: ['ACTIVE', 'INACTIVE'] },
    withdrawalsFrozen: { type: 'boolean', default: false },
    contactEmail: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    updatedAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
