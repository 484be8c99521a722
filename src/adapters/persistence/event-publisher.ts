// EventPublisher inside a unit of work (the outbox): the event, one PENDING
// delivery per active endpoint of the workspace and side that wants it, and
// one job per delivery, all on the caller's transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock, JobQueue, RandomSource } from '../../domain/ports.js';
import { envelope, newDelivery } from '../../domain/webhooks/delivery-schedule.js';
import type { EventName } from '../../domain/webhooks/events.js';
import type { EventPublisher, PublishedEvent } from '../../domain/webhooks/ports.js';
import { EVENT_DATA_SCHEMAS } from '../webhooks/event-schemas.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound, executeInline } from './sql.js';
import { WebhookDeliveryEntity, WebhookEventEntity, type WebhookDeliveryRow } from './entities/webhook-entities.js';

export class PgEventPublisher implements EventPublisher {
  constructor(
    private readonly em: EntityManager,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {}

  async publish<E extends EventName>(e: PublishedEvent<E>): Promise<{ eventId: string; deliveryIds: string[] }> {
    // A payload that does not match its documented schema is a bug: refuse to send it.
    const data = EVENT_DATA_SCHEMAS[e.event].parse(e.data) as object;
    const now = this.clock.now();
    const eventId = this.random.uuid();
    const payload = envelope(e.event, now, data);
    await this.em.insert(WebhookEventEntity, { id: eventId, workspaceId: e.workspaceId, side: e.side, event: e.event, payload, createdAt: now });
    const endpoints = await executeInline<{ id: string }>(
      this.em,
      `select id from webhook_endpoints where workspace_id = ? and side = ? and is_active and events @> array[?]::text[] order by created_at, id`,
      [e.workspaceId, e.side, e.event],
      this.em.getTransactionContext(),
    );
    const deliveries = deliveryRows(this.random, { eventId, event: e.event, payload }, endpoints.map((r) => r.id), now);
    await this.queue(deliveries);
    return { eventId, deliveryIds: deliveries.map((d) => d.id) };
  }

  async publishMany(events: PublishedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const now = this.clock.now();
    const rows = events.map((e) => {
      const data = EVENT_DATA_SCHEMAS[e.event].parse(e.data) as object;
      return { id: this.random.uuid(), workspaceId: e.workspaceId, side: e.side, event: e.event, payload: envelope(e.event, now, data) };
    });
    // One statement per few thousand events: each column as an array, unnested (a scanner step may publish thousands).
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000);
      await executeBound(
        this.em,
        `insert into webhook_events (id, workspace_id, side, event, payload, created_at)
         select id, workspace_id, side, event, payload, ?::timestamptz from unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[]) as t(id, workspace_id, side, event, payload)`,
        [now.toISOString(), ...(['id', 'workspaceId', 'side', 'event', 'payload'] as const).map((k) => pgArrayLiteral(chunk.map((r) => r[k])))],
      );
    }
    // The subscribed endpoints once per workspace, side and event name; every delivery in one insert, their jobs in another.
    const endpointsOf = new Map<string, string[]>();
    const deliveries: WebhookDeliveryRow[] = [];
    for (const r of rows) {
      const key = `${r.workspaceId}:${r.side}:${r.event}`;
      let endpoints = endpointsOf.get(key);
      if (!endpoints) {
        endpoints = (
          await executeInline<{ id: string }>(
            this.em,
            `select id from webhook_endpoints where workspace_id = ? and side = ? and is_active and events @> array[?]::text[] order by created_at, id`,
            [r.workspaceId, r.side, r.event],
            this.em.getTransactionContext(),
          )
        ).map((x) => x.id);
        endpointsOf.set(key, endpoints);
      }
      deliveries.push(...deliveryRows(this.random, { eventId: r.id, event: r.event, payload: r.payload }, endpoints, now));
    }
    await this.queue(deliveries);
  }

  /** The deliveries inserted (a few thousand per statement) and one job each, on the caller's transaction. */
  private async queue(deliveries: WebhookDeliveryRow[]): Promise<void> {
    for (let i = 0; i < deliveries.length; i += 5000) await this.em.insertMany(WebhookDeliveryEntity, deliveries.slice(i, i + 5000));
    await this.jobs.enqueueMany(
      'webhook.deliver',
      deliveries.map((d) => ({ deliveryId: d.id })),
    );
  }
}

/** One new PENDING delivery of the event per endpoint. */
function deliveryRows(random: RandomSource, event: { eventId: string; event: string; payload: string }, endpointIds: readonly string[], now: Date): WebhookDeliveryRow[] {
  const fresh = newDelivery(now);
  return endpointIds.map((endpointId) => ({
    id: random.uuid(),
    endpointId,
    eventId: event.eventId,
    event: event.event,
    status: fresh.status,
    payload: event.payload,
    attempts: fresh.attempts,
    maxAttempts: fresh.maxAttempts,
    responseStatus: null,
    lastError: null,
    createdAt: now,
    lastAttemptAt: null,
    nextAttemptAt: fresh.nextAttemptAt,
    deliveredAt: null,
    failedAt: null,
    leaseUntil: null,
    leaseToken: null,
  }));
}
