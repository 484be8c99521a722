// The delivery log of an endpoint and its recovery (docs/api.md#deliveries):
// GET /v2/webhooks/{id}/deliveries (webhooks:read), and one more attempt of a
// finished delivery, or of every FAILED one since a time (webhooks:write).
// A redelivery keeps the delivery id, counts in `attempts`, and is queued in
// the same transaction that reopens it.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { callersEndpoint } from './callers-endpoint.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { redeliver, type DeliveryStatus } from '../../domain/webhooks/delivery-schedule.js';
import type { WebhookDelivery } from '../../domain/webhooks/ports.js';
import { TOKENS } from '../tokens.js';

/** Most FAILED deliveries one redeliver-failed call re-sends; call again for more. */
export const REDELIVER_FAILED_MAX = 1000;

@injectable()
export class ManageDeliveries {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  list(principal: Principal, endpointId: string, filter: { status?: DeliveryStatus }, page: PageRequest): Promise<Page<WebhookDelivery>> {
    requireScope(principal, 'webhooks:read');
    return this.uow.run(async (tx) => {
      const endpoint = await callersEndpoint(tx, principal, endpointId);
      return tx.deliveries.list(endpoint.id, filter, page);
    });
  }

  redeliver(principal: Principal, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
    requireScope(principal, 'webhooks:write');
    return this.uow.run(async (tx) => {
      const endpoint = await callersEndpoint(tx, principal, endpointId, { lock: true });
      const delivery = isUuid(deliveryId) ? await tx.deliveries.get(endpoint.id, deliveryId) : null;
      if (!delivery) throw new DomainError('NOT_FOUND', 'No such delivery of this webhook endpoint');
      const reopened = redeliver(delivery, this.clock.now());
      // The endpoint's row lock keeps other redeliveries out and dispatchers touch only PENDING rows: the
      // delivery can only have gone since it was read (purged at 90 days).
      if (!(await tx.deliveries.reopen(delivery.id, reopened))) throw new DomainError('NOT_FOUND', 'No such delivery of this webhook endpoint');
      await tx.jobs.enqueue('webhook.deliver', { deliveryId: delivery.id });
      return { ...delivery, ...reopened, status: 'PENDING' };
    });
  }

  redeliverFailed(principal: Principal, endpointId: string, since: Date): Promise<{ redelivered: number; more: boolean }> {
    requireScope(principal, 'webhooks:write');
    return this.uow.run(async (tx) => {
      const endpoint = await callersEndpoint(tx, principal, endpointId, { lock: true });
      const now = this.clock.now();
      const failed = await tx.deliveries.failedSince(endpoint.id, since, REDELIVER_FAILED_MAX + 1);
      const batch = failed.slice(0, REDELIVER_FAILED_MAX);
      let redelivered = 0;
      for (const delivery of batch) {
        if (!(await tx.deliveries.reopen(delivery.id, redeliver(delivery, now)))) continue; // purged since it was read
        await tx.jobs.enqueue('webhook.deliver', { deliveryId: delivery.id });
        redelivered += 1;
      }
      return { redelivered, more: failed.length > batch.length };
    });
  }
}
