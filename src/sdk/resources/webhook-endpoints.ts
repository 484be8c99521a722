// Types of the webhook endpoint endpoints (docs/api.md#webhook-endpoints).
import type { DateTimeString } from '../types.js';
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
