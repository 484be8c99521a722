// WebhookHousekeeping in PostgreSQL: the 90-day purge, in batches so a large
// backlog never holds one long transaction, and the oldest-pending gauge.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { WebhookHousekeeping } from '../../domain/webhooks/ports.js';

const BATCH = 5000;

export class PgWebhookHousekeeping implements WebhookHousekeeping {
  constructor(private readonly orm: MikroORM) {}

  async purgeFinishedBefore(cutoff: Date): Promise<{ deliveries: number; events: number }> {
    const conn = this.orm.em.getConnection();
    const loop = async (sql: string): Promise<number> => {
      let total = 0;
      for (;;) {
        const res = await conn.execute<{ affectedRows?: number }>(sql, [cutoff, BATCH], 'run');
        const n = Number(res.affectedRows ?? 0);
        total += n;
        if (n < BATCH) return total;
      }
    };
    const deliveries = await loop(
      `delete from webhook_deliveries where id in (
         select id from webhook_deliveries
          where status in ('DELIVERED', 'FAILED') and coalesce(delivered_at, failed_at, last_attempt_at, created_at) < ?
          limit ?)`,
    );
    const events = await loop(
      `delete from webhook_events where id in (
         select ev.id from webhook_events ev
          where ev.created_at < ? and not exists (select 1 from webhook_deliveries d where d.event_id = ev.id)
          limit ?)`,
    );
    return { deliveries, events };
  }

  async oldestPending(now: Date): Promise<{ endpointId: string; seconds: number }[]> {
    const rows = await this.orm.em
      .getConnection()
      .execute<{ endpoint_id: string; oldest: Date }[]>(
        `select endpoint_id, min(created_at) as oldest from webhook_deliveries where status = 'PENDING' group by endpoint_id`,
      );
    return rows.map((r) => ({ endpointId: r.endpoint_id, seconds: Math.max(0, (now.getTime() - new Date(r.oldest).getTime()) / 1000) }));
  }
}
