// Tables `webhook_endpoints` (where a workspace's events go; the secrets only
// as ciphertext) and `webhook_deliveries` (one row per event and endpoint,
// with its attempts; removed with its endpoint).
import { ArrayType, EntitySchema } from '@mikro-orm/core';
import type { WebhookEndpoint } from '../../../domain/webhooks/webhook-endpoint.js';
import { workspaceReference } from './workspace-reference.js';

export const WebhookEndpointEntity = new EntitySchema<WebhookEndpoint>({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  indexes: [{ name: 'webhook_endpoints_list_idx', properties: ['workspaceId', 'side', 'createdAt'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    side: { enum: true, items: ['live', 'test'] },
    url: { type: 'text' },
    events: { type: ArrayType, columnType: 'text[]' },
    isActive: { type: 'boolean' },
    secretCiphertext: { type: 'text' },
    previousSecretCiphertext: { type: 'text', nullable: true },
    previousSecretExpiresAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    updatedAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

export interface WebhookDeliveryRow {
  id: string;
  endpointId: string;
  event: string;
  status: 'PENDING' | 'DELIVERED' | 'FAILED';
  payload: string;
  attempts: number;
  responseStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

export const WebhookDeliveryEntity = new EntitySchema<WebhookDeliveryRow>({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  indexes: [
    { name: 'webhook_deliveries_endpoint_idx', properties: ['endpointId', 'createdAt'] },
    { name: 'webhook_deliveries_status_idx', properties: ['endpointId', 'status'] },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    endpointId: { kind: 'm:1', entity: 'WebhookEndpoint', mapToPk: true, fieldName: 'endpoint_id', deleteRule: 'cascade' } as never,
    event: { type: 'text' },
    status: { enum: true, items: ['PENDING', 'DELIVERED', 'FAILED'] },
    // The exact body sent, as text: the signature covers these bytes.
    payload: { type: 'text' },
    attempts: { type: 'integer' },
    responseStatus: { type: 'integer', nullable: true },
    lastError: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    lastAttemptAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    nextAttemptAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    deliveredAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});
