// Tables `webhook_endpoints` (where a workspace's events go; the secrets only
// as ciphertext) and `webhook_deliveries` (one row per event and endpoint,
// with its attempts; removed with its endpoint).
import { ArrayType, EntitySchema } from '@mikro-orm/core';
import type { WebhookEndpoint } from '../../../domain/webhooks/webhook-endpoint.js';
import type { WebhookDelivery } from '../../../domain/webhooks/ports.js';
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

/** One event as published: the body every delivery of it sends. */
export interface WebhookEventRow {
  id: string;
  workspaceId: string;
  side: 'live' | 'test';
  event: string;
  payload: string;
  createdAt: Date;
}

export const WebhookEventEntity = new EntitySchema<WebhookEventRow>({
  name: 'WebhookEvent',
  tableName: 'webhook_events',
  indexes: [{ name: 'webhook_events_event_idx', properties: ['event', 'createdAt'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    side: { enum: true, items: ['live', 'test'] },
    event: { type: 'text' },
    payload: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

/** A delivery as stored: the record the log shows, plus the claim of the dispatcher holding it. */
export interface WebhookDeliveryRow extends Omit<WebhookDelivery, 'event'> {
  event: string;
  /** A dispatcher holds the delivery until then (renewed while it waits or sends). */
  leaseUntil: Date | null;
  leaseToken: string | null;
}

export const WebhookDeliveryEntity = new EntitySchema<WebhookDeliveryRow>({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  indexes: [
    { name: 'webhook_deliveries_endpoint_idx', properties: ['endpointId', 'createdAt'] },
    { name: 'webhook_deliveries_status_idx', properties: ['endpointId', 'status', 'createdAt'] },
    { name: 'webhook_deliveries_due_idx', properties: ['status', 'nextAttemptAt'] },
    { name: 'webhook_deliveries_event_idx', properties: ['eventId', 'endpointId'] },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    endpointId: { kind: 'm:1', entity: 'WebhookEndpoint', mapToPk: true, fieldName: 'endpoint_id', deleteRule: 'cascade' } as never,
    eventId: { kind: 'm:1', entity: 'WebhookEvent', mapToPk: true, fieldName: 'event_id' } as never,
    event: { type: 'text' },
    status: { enum: true, items: ['PENDING', 'DELIVERED', 'FAILED'] },
    // The exact body sent, as text: the signature covers these bytes.
    payload: { type: 'text' },
    attempts: { type: 'integer' },
    maxAttempts: { type: 'integer', default: 5 },
    responseStatus: { type: 'integer', nullable: true },
    lastError: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
    lastAttemptAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    nextAttemptAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    deliveredAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    failedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    leaseUntil: { type: 'Date', columnType: 'timestamptz', nullable: true },
    leaseToken: { type: 'uuid', nullable: true },
  },
});

/** When the last dead-endpoint notice of an endpoint was sent (at most one per 7 days). */
export interface WebhookNoticeRow {
  endpointId: string;
  sentAt: Date;
}

export const WebhookNoticeEntity = new EntitySchema<WebhookNoticeRow>({
  name: 'WebhookNotice',
  tableName: 'webhook_notices',
  properties: {
    endpointId: { kind: '1:1', entity: 'WebhookEndpoint', primary: true, mapToPk: true, fieldName: 'endpoint_id', deleteRule: 'cascade', owner: true } as never,
    sentAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
