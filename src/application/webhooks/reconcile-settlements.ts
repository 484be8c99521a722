// Scheduled reconciliation (docs/api.md#deliveries): a settlement event
// (DEPOSIT_SWEPT, WITHDRAWAL_CONFIRMED, COMMITMENT_ADJUSTMENT_EMITTED) of the
// last seven days that an endpoint wants but never got a delivery for gets
// one now, with a new delivery id; receivers deduplicate on the resource id.
import { inject, injectable } from 'tsyringe';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { SETTLEMENT_EVENTS } from '../../domain/webhooks/events.js';
import { TOKENS } from '../tokens.js';

/** How far back reconciliation looks: far inside the 90-day retention, so purged history is never re-sent. */
export const RECONCILE_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
const BATCH = 500;

@injectable()
export class ReconcileSettlements {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<number> {
    const now = this.clock.now();
    const since = new Date(now.getTime() - RECONCILE_WINDOW_MS);
    let created = 0;
    for (;;) {
      const ids = await this.uow.run(async (tx) => {
        const fresh = await tx.deliveries.createMissing(SETTLEMENT_EVENTS, since, now, now, BATCH);
        for (const deliveryId of fresh) await tx.jobs.enqueue('webhook.deliver', { deliveryId });
        return fresh;
      });
      created += ids.length;
      if (ids.length < BATCH) return created;
    }
  }
}
