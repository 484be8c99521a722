// What the webhook use cases need from the outside world.
import type { NetworkSide } from '../money/networks.js';
import type { Page, PageRequest } from '../pagination.js';
import type { WebhookEndpoint } from './webhook-endpoint.js';

/** Webhook endpoints, inside the unit of work. */
export interface WebhookEndpointRepo {
  add(endpoint: WebhookEndpoint): Promise<void>;
  get(workspaceId: string, side: NetworkSide, id: string): Promise<WebhookEndpoint | null>;
  /** The endpoint, its row locked until the transaction ends (concurrent changes of one endpoint wait). */
  getForUpdate(workspaceId: string, side: NetworkSide, id: string): Promise<WebhookEndpoint | null>;
  /** Newest first. */
  list(workspaceId: string, side: NetworkSide, page: PageRequest): Promise<Page<WebhookEndpoint>>;
  /** Writes every field of an endpoint read with getForUpdate. */
  save(endpoint: WebhookEndpoint): Promise<void>;
  /** Removes the endpoint and its delivery history. */
  delete(id: string): Promise<void>;
  /** Counts the workspace's endpoints on a side, holding a lock until the transaction ends so concurrent registrations count one after another. */
  countForUpdate(workspaceId: string, side: NetworkSide): Promise<number>;
  hasPendingDeliveries(endpointId: string): Promise<boolean>;
}

/**
 * Decides whether the service may call a webhook URL: its shape, and every
 * address its host resolves to (public only, unless the deployment allows
 * private receivers). Throws VALIDATION_ERROR naming `url`; returns the URL
 * as it will be called.
 */
export interface WebhookUrlGuard {
  check(url: string): Promise<string>;
}
