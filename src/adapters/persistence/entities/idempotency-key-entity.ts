// Table `idempotency_keys`: the first response of each idempotent create,
// scoped per workspace, network side, method and path, kept 24 hours.
import { EntitySchema } from '@mikro-orm/core';

export interface IdempotencyKeyRow {
  workspaceId: string;
  side: string;
  method: string;
  path: string;
  key: string;
  fingerprint: string;
  responseStatus: number;
  /** The exact JSON text of the first response's body (text, not jsonb, which would reorder its keys). */
  responseBody: string;
  createdAt: Date;
  expiresAt: Date;
}

export const IdempotencyKeyEntity = new EntitySchema<IdempotencyKeyRow>({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  indexes: [{ name: 'idempotency_keys_expires_idx', properties: ['expiresAt'] }],
  properties: {
    workspaceId: { type: 'uuid', primary: true },
    side: { type: 'text', primary: true },
    method: { type: 'text', primary: true },
    path: { type: 'text', primary: true },
    key: { type: 'text', primary: true },
    fingerprint: { type: 'text' },
    responseStatus: { type: 'integer' },
    responseBody: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    expiresAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
