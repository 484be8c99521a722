// What the webhook use cases need from the outside world.
import type { NetworkSide } from '../money/networks.js';
import type { Page, PageRequest } from '../pagination.js';
import type { WebhookEndpoint } from './webhook-endpoint.js';
import type { EventData, EventName } from './events.js';
import type { DeliveryState, DeliveryStatus } from './delivery-schedule.js';

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
  /** The endpoint of any workspace and side: for the dispatcher's jobs, which know only its id. */
  findById(id: string): Promise<WebhookEndpoint | null>;
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
  /** Many events at once, in order, as `publish` would record them one by one (a scanner step's deposits). */
  publishMany(events: PublishedEvent[]): Promise<void>;
}

/** A delivery record as the log shows it (docs/api.md#deliveries). */
export interface WebhookDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  event: EventName;
  status: DeliveryStatus;
  payload: string;
  attempts: number;
  maxAttempts: number;
  responseStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  failedAt: Date | null;
}

/** A delivery a dispatcher holds, with what it needs to send it. */
export interface ClaimedDelivery {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
}

/** How one attempt ended. */
export interface AttemptResult {
  /** The receiver's HTTP status, null when none came (timeout, refused, unsafe address). */
  responseStatus: number | null;
  /** Why the attempt failed, null when the receiver answered 2xx. */
  error: string | null;
  durationMs: number;
}

/** Sends one attempt: POST, no redirects, a time-out, connecting only to checked addresses. */
export interface WebhookSender {
  send(req: { url: string; headers: Record<string, string>; body: string; timeoutMs: number }): Promise<AttemptResult>;
}

/**
 * The dispatchers' claim on deliveries. A claim is a lease held by one
 * dispatcher (`owner`) until it ends or the lease runs out, so two
 * dispatchers never send one attempt; a crashed dispatcher's deliveries come
 * back when their lease runs out. Leases run on the database's clock; the
 * schedule (`due`) on the service's.
 */
export interface DeliveryClaims {
  /** Claims those of these PENDING deliveries that are due at `now` and not held by anyone, in one statement. */
  claimMany(deliveryIds: readonly string[], owner: string, now: Date): Promise<ClaimedDelivery[]>;
  /**
   * Writes the outcome of an attempt of a delivery `owner` holds, in one
   * statement, and ends the hold; false when the hold was lost. For outcomes
   * that change nothing else (delivered, or due again): a delivery that fails
   * for good goes through the unit of work (the dead-endpoint check).
   */
  finish(deliveryId: string, owner: string, state: DeliveryState, result: AttemptResult, at: Date): Promise<boolean>;
  /**
   * Claims up to `limit` due deliveries no one holds, oldest due first, at
   * most `perEndpoint` of any one endpoint and none of the `skipEndpoints`
   * (so one endpoint's backlog cannot take every claim).
   */
  claimDue(owner: string, now: Date, limit: number, perEndpoint: number, skipEndpoints: readonly string[]): Promise<ClaimedDelivery[]>;
  /** Extends the lease of everything `owner` holds. */
  renew(owner: string): Promise<void>;
  /** Gives a held delivery back at once (it stays due). */
  release(deliveryId: string, owner: string): Promise<void>;
}

/** Delivery records inside a unit of work. */
export interface WebhookDeliveryRepo {
  /**
   * Writes the outcome of an attempt of a delivery `owner` holds and ends the
   * hold; false (nothing written) when the hold was lost.
   */
  recordAttempt(
    deliveryId: string,
    owner: string,
    state: DeliveryState,
    result: AttemptResult,
    at: Date,
  ): Promise<boolean>;
  get(endpointId: string, deliveryId: string): Promise<WebhookDelivery | null>;
  /** Newest first. */
  list(endpointId: string, filter: { status?: DeliveryStatus }, page: PageRequest): Promise<Page<WebhookDelivery>>;
  /** Makes a finished delivery due again with one more attempt; false when it is held or not finished. */
  reopen(deliveryId: string, state: DeliveryState): Promise<boolean>;
  /** Ids of the endpoint's FAILED deliveries created at or after `since`, oldest first (at most `limit`). */
  failedSince(endpointId: string, since: Date, limit: number): Promise<WebhookDelivery[]>;
  /**
   * FAILED deliveries of the endpoint whose last attempt was at or after
   * `since`, counted under a per-endpoint lock held until the transaction
   * ends, so of several failures recorded at once the last sees them all.
   */
  countFailedSince(endpointId: string, since: Date): Promise<number>;
  /** Records a dead-endpoint notice unless one was sent after `notBefore`; true when this call recorded it. */
  takeNoticeSlot(endpointId: string, at: Date, notBefore: Date): Promise<boolean>;
  /**
   * Reconciliation: for events of these names published in [since, until],
   * creates a PENDING delivery (new id) for every active endpoint of the
   * event's workspace and side that wants it, existed when it was published,
   * and has none for it; at most `limit`. Returns the new deliveries' ids.
   */
  createMissing(events: readonly EventName[], since: Date, until: Date, now: Date, limit: number): Promise<string[]>;
}

/** Housekeeping of delivery records outside any unit of work. */
export interface WebhookHousekeeping {
  /** Deletes DELIVERED and FAILED deliveries finished before `cutoff`, and events older than it left without deliveries. */
  purgeFinishedBefore(cutoff: Date): Promise<{ deliveries: number; events: number }>;
  /** Per endpoint with PENDING deliveries, the age in seconds of its oldest one at `now`. */
  oldestPending(now: Date): Promise<{ endpointId: string; seconds: number }[]>;
}
