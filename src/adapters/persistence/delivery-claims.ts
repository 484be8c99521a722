// DeliveryClaims in PostgreSQL: a claim is a lease (lease_token = the
// dispatcher's id, lease_until on the database clock) taken by one UPDATE, so
// of two dispatchers racing for a delivery exactly one gets it; a dispatcher
// that dies stops renewing and its deliveries are due again when the lease
// runs out. Whether a delivery is due is judged on the service's clock.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { DeliveryState } from '../../domain/webhooks/delivery-schedule.js';
import type { AttemptResult, ClaimedDelivery, DeliveryClaims } from '../../domain/webhooks/ports.js';
import { WebhookDeliveryEntity, WebhookEndpointEntity } from './entities/index.js';
import { MikroWebhookDeliveryRepo, deliveryOf } from './webhook-delivery-repo.js';

const FREE = `(lease_until is null or lease_until <= now())`;

export class PgDeliveryClaims implements DeliveryClaims {
  constructor(
    private readonly orm: MikroORM,
    private readonly leaseSeconds: number,
  ) {}

  claimMany(deliveryIds: readonly string[], owner: string, now: Date): Promise<ClaimedDelivery[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.withEndpoints(
      `update webhook_deliveries set lease_until = now() + make_interval(secs => ?), lease_token = ?
        where id = any(?::uuid[]) and status = 'PENDING' and next_attempt_at <= ? and ${FREE}
        returning *`,
      [this.leaseSeconds, owner, `{${deliveryIds.join(',')}}`, now],
    );
  }

  finish(deliveryId: string, owner: string, state: DeliveryState, result: AttemptResult, at: Date): Promise<boolean> {
    // Outside a transaction: one UPDATE, committed on its own.
    return new MikroWebhookDeliveryRepo(this.orm.em.fork()).recordAttempt(deliveryId, owner, state, result, at);
  }

  claimDue(owner: string, now: Date, limit: number, perEndpoint: number, skipEndpoints: readonly string[]): Promise<ClaimedDelivery[]> {
    if (limit <= 0) return Promise.resolve([]);
    // Of two dispatchers picking the same rows, the UPDATE's own check lets one win each.
    return this.withEndpoints(
      `update webhook_deliveries set lease_until = now() + make_interval(secs => ?), lease_token = ?
        where id in (
          select id from (
            select id, next_attempt_at,
                   row_number() over (partition by endpoint_id order by next_attempt_at, id) as nth
              from webhook_deliveries
             where status = 'PENDING' and next_attempt_at <= ? and ${FREE}
               and not (endpoint_id = any(?::uuid[]))) due
           where nth <= ?
           order by next_attempt_at, id
           limit ?)
          and status = 'PENDING' and ${FREE}
        returning *`,
      [this.leaseSeconds, owner, now, `{${skipEndpoints.join(',')}}`, perEndpoint, limit],
    );
  }

  async renew(owner: string): Promise<void> {
    await this.orm.em
      .getConnection()
      .execute(`update webhook_deliveries set lease_until = now() + make_interval(secs => ?) where lease_token = ? and status = 'PENDING'`, [
        this.leaseSeconds,
        owner,
      ]);
  }

  async release(deliveryId: string, owner: string): Promise<void> {
    await this.orm.em
      .getConnection()
      .execute(`update webhook_deliveries set lease_until = null, lease_token = null where id = ? and lease_token = ?`, [deliveryId, owner]);
  }

  /** Runs a claiming UPDATE and pairs each claimed delivery with its endpoint as it is now. */
  private async withEndpoints(sql: string, params: unknown[]): Promise<ClaimedDelivery[]> {
    const em = this.orm.em.fork();
    const rows = await em.getConnection().execute<Record<string, unknown>[]>(sql, params);
    if (rows.length === 0) return [];
    const deliveries = rows.map((r) => deliveryOf(em.map(WebhookDeliveryEntity, r)));
    const endpoints = await em.find(WebhookEndpointEntity, { id: { $in: [...new Set(deliveries.map((d) => d.endpointId))] } }, { disableIdentityMap: true });
    const byId = new Map(endpoints.map((e) => [e.id, e]));
    return deliveries.flatMap((delivery) => {
      const endpoint = byId.get(delivery.endpointId);
      return endpoint ? [{ delivery, endpoint: { ...endpoint, events: [...endpoint.events] } }] : [];
    });
  }
}
