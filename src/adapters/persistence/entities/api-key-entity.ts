// Table `api_keys`: keys of a workspace. The signing secret is stored only as
// AES-256-GCM ciphertext (it must be recoverable to verify HMACs;
// docs/operations.md#secrets).
import { ArrayType, EntitySchema } from '@mikro-orm/core';
import { workspaceReference } from './workspace-reference.js';
import type { ApiKey } from '../../../domain/auth/api-key.js';

export const ApiKeyEntity = new EntitySchema<ApiKey>({
  name: 'ApiKey',
  tableName: 'api_keys',
  indexes: [{ name: 'api_keys_workspace_idx', properties: ['workspaceId', 'createdAt'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    keyId: { type: 'text', unique: 'api_keys_key_id_unique' },
    label: { type: 'text' },
    scopes: { type: ArrayType, columnType: 'text[]' },
    permission: { enum: true, items: ['READ_ONLY', 'READ_WRITE'], nullable: true },
    allowedIps: { type: ArrayType, columnType: 'text[]' },
    isTest: { type: 'boolean' },
    secretCiphertext: { type: 'text' },
    lastUsedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    revokedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
