// Scheduled: delivered and failed deliveries are kept 90 days; PENDING ones
// are never purged.
import { inject, injectable } from 'tsyringe';
import type { Clock } from '../../domain/ports.js';
import { DELIVERY_RETENTION_MS } from '../../domain/webhooks/delivery-schedule.js';
import type { WebhookHousekeeping } from '../../domain/webhooks/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class PurgeWebhookDeliveries {
  constructor(
    @inject(TOKENS.WebhookHousekeeping) private readonly housekeeping: WebhookHousekeeping,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  execute(): Promise<{ deliveries: number; events: number }> {
    return this.housekeeping.purgeFinishedBefore(new Date(this.clock.now().getTime() - DELIVERY_RETENTION_MS));
  }
}
