// WebhookDeliveryRepo over MikroORM, bound to the entity manager of one
// transaction: attempts recorded under the dispatcher's hold, the delivery
// log, redelivery and the dead-endpoint notice slot.
import type { EntityManager } from '@mikro-orm/postgresql';
import { MAX_ATTEMPTS, type DeliveryState, type DeliveryStatus } from '../../domain/webhooks/delivery-schedule.js';
import type { EventName } from '../../domain/webhooks/events.js';
import type { AttemptResult, WebhookDelivery, WebhookDeliveryRepo } from '../../domain/webhooks/ports.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import { WebhookDeliveryEntity, type WebhookDeliveryRow } from './entities/webhook-entities.js';
import { conditions, countOf, findPage } from './find-page.js';
import { lockUntilCommit } from './advisory-lock.js';
import { executeInline } from './sql.js';

export const deliveryOf = (r: WebhookDeliveryRow): WebhookDelivery => ({
  id: r.id,
  endpointId: r.endpointId,
  eventId: r.eventId,
  event: r.event as EventName,
  status: r.status,
  payload: r.payload,
  attempts: r.attempts,
  maxAttempts: r.maxAttempts,
  responseStatus: r.responseStatus,
  lastError: r.lastError,
  createdAt: r.createdAt,
  lastAttemptAt: r.lastAttemptAt,
  nextAttemptAt: r.nextAttemptAt,
  deliveredAt: r.deliveredAt,
  failedAt: r.failedAt,
});

/** Longest last_error kept: a receiver's error text is not ours to store in full. */
const MAX_ERROR_LENGTH = 500;

export class MikroWebhookDeliveryRepo implements WebhookDeliveryRepo {
  constructor(private readonly em: EntityManager) {}

  async recordAttempt(deliveryId: string, owner: string, state: DeliveryState, result: AttemptResult, at: Date): Promise<boolean> {
    const written = await this.em.nativeUpdate(
      WebhookDeliveryEntity,
      { id: deliveryId, leaseToken: owner, status: 'PENDING' },
      {
        status: state.status,
        attempts: state.attempts,
        maxAttempts: state.maxAttempts,
        nextAttemptAt: state.nextAttemptAt,
        responseStatus: result.responseStatus,
        // Whatever a sender put there, PostgreSQL must be able to store it (no NUL).
        lastError: result.error === null ? null : result.error.replaceAll('\u0000', ' ').slice(0, MAX_ERROR_LENGTH),
        lastAttemptAt: at,
        deliveredAt: state.status === 'DELIVERED' ? at : null,
        failedAt: state.status === 'FAILED' ? at : null,
        leaseUntil: null,
        leaseToken: null,
      },
    );
    return written === 1;
  }

  async get(endpointId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    const row = await this.em.findOne(WebhookDeliveryEntity, { id: deliveryId, endpointId }, { disableIdentityMap: true });
    return row ? deliveryOf(row) : null;
  }

  async list(endpointId: string, filter: { status?: DeliveryStatus }, page: PageRequest): Promise<Page<WebhookDelivery>> {
    const q = { table: 'webhook_deliveries', orderBy: 'created_at', ...conditions({ endpoint_id: endpointId }, { status: filter.status }) };
    const found = await findPage(this.em, WebhookDeliveryEntity, q, () => countOf(this.em, 'webhook_deliveries', endpointId, { status: filter.status }), page);
    return { ...found, data: found.data.map(deliveryOf) };
  }

  async reopen(deliveryId: string, state: DeliveryState): Promise<boolean> {
    const written = await this.em.nativeUpdate(
      WebhookDeliveryEntity,
      { id: deliveryId, status: { $in: ['DELIVERED', 'FAILED'] } },
      { status: 'PENDING', maxAttempts: state.maxAttempts, nextAttemptAt: state.nextAttemptAt, leaseUntil: null, leaseToken: null },
    );
    return written === 1;
  }

  async failedSince(endpointId: string, since: Date, limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.em.find(
      WebhookDeliveryEntity,
      { endpointId, status: 'FAILED', createdAt: { $gte: since } },
      { orderBy: { createdAt: 'asc', id: 'asc' }, limit, disableIdentityMap: true },
    );
    return rows.map(deliveryOf);
  }

  async countFailedSince(endpointId: string, since: Date): Promise<number> {
    // Failures recorded at once count one after another: the last to commit sees them all.
    await lockUntilCommit(this.em, `webhook-failures:${endpointId}`);
    return this.em.count(WebhookDeliveryEntity, { endpointId, status: 'FAILED', failedAt: { $gte: since } });
  }

  async takeNoticeSlot(endpointId: string, at: Date, notBefore: Date): Promise<boolean> {
    const rows = await executeInline<{ endpoint_id: string }>(
      this.em,
      `insert into webhook_notices (endpoint_id, sent_at) values (?, ?)
       on conflict (endpoint_id) do update set sent_at = excluded.sent_at where webhook_notices.sent_at < ?
       returning endpoint_id`,
      [endpointId, at, notBefore],
      this.em.getTransactionContext(),
    );
    return rows.length === 1;
  }

  async createMissing(events: readonly EventName[], since: Date, until: Date, now: Date, limit: number): Promise<string[]> {
    const rows = await executeInline<{ id: string }>(
      this.em,
      `insert into webhook_deliveries (id, endpoint_id, event_id, event, status, payload, attempts, max_attempts, created_at, next_attempt_at)
       select gen_random_uuid(), ep.id, ev.id, ev.event, 'PENDING', ev.payload, 0, ?, ?, ?
         from webhook_events ev
         join webhook_endpoints ep
           on ep.workspace_id = ev.workspace_id and ep.side = ev.side and ep.is_active
          and ep.events @> array[ev.event]::text[] and ep.created_at <= ev.created_at
        where ev.event = any(?::text[]) and ev.created_at >= ? and ev.created_at <= ?
          and not exists (select 1 from webhook_deliveries d where d.event_id = ev.id and d.endpoint_id = ep.id)
        order by ev.created_at
        limit ?
       returning id`,
      [MAX_ATTEMPTS, now, now, `{${events.join(',')}}`, since, until, limit],
      this.em.getTransactionContext(),
    );
    return rows.map((r) => r.id);
  }
}
