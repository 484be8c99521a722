// Types of the webhook endpoint endpoints (docs/api.md#webhook-endpoints).
import type { DateTimeString, PageParams } from '../types.js';
import type { WebhookEventName } from '../webhooks.js';

export interface WebhookEndpoint {
  id: string;
  /** A public https URL. */
  url: string;
  /** The events delivered to it, each once. */
  events: WebhookEventName[];
  is_active: boolean;
  created_at: DateTimeString;
}

/** The creation response: the only time this secret is shown. verifyWebhook checks deliveries with it. */
export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

/** The rotation response: the new secret, shown once; the previous one keeps signing until `previous_secret_expires_at`. */
export interface RotatedWebhookEndpoint extends CreatedWebhookEndpoint {
  previous_secret_expires_at: DateTimeString;
}

/** A private or local URL, or an unknown event, is a 400 VALIDATION_ERROR; the 11th endpoint a 422 WEBHOOK_LIMIT_REACHED. */
export interface CreateWebhookEndpointParams {
  url: string;
  /** At least one. */
  events: WebhookEventName[];
}

/** Only the fields given change. */
export interface UpdateWebhookEndpointParams {
  url?: string;
  events?: WebhookEventName[];
  is_active?: boolean;
}

export interface DeletedWebhookEndpoint {
  message: string;
}

export type WebhookDeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

/** One delivery of an event to an endpoint, with its attempts (docs/api.md#deliveries). */
export interface WebhookDelivery {
  /** The delivery id, as in X-Service-Delivery: the same on every attempt. */
  id: string;
  webhook_id: string;
  event: WebhookEventName;
  status: WebhookDeliveryStatus;
  /** HTTP status of the last answer; null when none came. */
  response_status: number | null;
  attempts: number;
  last_error: string | null;
  /** The exact body sent. */
  payload: string;
  created_at: DateTimeString;
  last_attempt_at: DateTimeString | null;
  /** Earliest time of the next attempt; null once DELIVERED or FAILED. */
  next_attempt_at: DateTimeString | null;
  delivered_at: DateTimeString | null;
}

export interface ListWebhookDeliveriesParams extends PageParams {
  status?: WebhookDeliveryStatus;
}

export interface RedeliverFailedParams {
  /** Every FAILED delivery created at or after this time is sent once more. */
  since: DateTimeString;
}

export interface RedeliveredFailed {
  redelivered: number;
  /** More matched than one call queues: call again. */
  more: boolean;
}
