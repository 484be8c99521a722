// What the webhook use cases need from the outside world.
import type { NetworkSide } from '../money/networks.js';
import type { Page, PageRequest } from '../pagination.js';
import type { WebhookEndpoint } from './webhook-endpoint.js';
import type { EventData, EventName } from './events.js';

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

/** One event of one workspace on one side, as a use case publishes it. */
export interface PublishedEvent<E extends EventName = EventName> {
  workspaceId: string;
  side: NetworkSide;
  event: E;
  data: EventData<E>;
}

/**
 * The one way events leave the service. Called inside a unit of work: it
 * records the event and, for every active endpoint of the workspace and side
 * whose events contain it, a PENDING delivery with its own id and the job
 * that sends it; all of it commits or rolls back with the caller's change.
 */
export interface EventPublisher {
  publish<E extends EventName>(event: PublishedEvent<E>): Promise<{ eventId: string; deliveryIds: string[] }>;
}
