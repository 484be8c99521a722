// ReplayGuard in PostgreSQL, so one signature is accepted once across every
// api process: the insert itself decides (primary key), with no read first.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ReplayGuard } from '../../domain/ports.js';

export class PgReplayGuard implements ReplayGuard {
  constructor(private readonly orm: MikroORM) {}

  async remember(keyId: string, signature: string, expiresAt: Date): Promise<boolean> {
    const rows = await this.orm.em.getConnection().execute<{ key_id: string }[]>(
      `insert into request_signatures (key_id, signature, expires_at) values (?, ?, ?)
       on conflict (key_id, signature) do update set expires_at = excluded.expires_at
         where request_signatures.expires_at <= now()
       returning key_id`,
      [keyId, signature, expiresAt],
    );
    return rows.length === 1;
  }

  async purgeExpired(now: Date): Promise<number> {
    const res = await this.orm.em
      .getConnection()
      .execute(`delete from request_signatures where expires_at <= ?`, [now], 'run');
    return (res as { affectedRows?: number }).affectedRows ?? 0;
  }
}
