// RequestAdmission in PostgreSQL, in ONE statement per request, so admission
// adds a single round trip to the key lookup: the signature insert (its
// primary key decides a replay, no read first), the key's token bucket
// (refilled by elapsed time, capped at the burst, under the row lock the
// upsert takes, so N api processes share one limit) and last_used_at (written
// at most once a minute per key).
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Admission, AdmissionRequest, RequestAdmission } from '../../domain/ports.js';

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export class PgRequestAdmission implements RequestAdmission {
  private readonly sql: string;

  constructor(
    private readonly orm: MikroORM,
    private readonly limit: RateLimit,
  ) {
    if (!(limit.perSecond > 0 && limit.burst >= 1)) throw new Error('rate limit must be positive');
    // The limits are numbers from validated configuration, never request input.
    const refilled = `least(${limit.burst}::float8, b.tokens + greatest(0, extract(epoch from clock_timestamp() - b.refilled_at)) * ${limit.perSecond}::float8)`;
    this.sql = `
      with sig as (
        insert into request_signatures as s (key_id, signature, expires_at) values (?, ?, ?)
        on conflict (key_id, signature) do update set expires_at = excluded.expires_at
          where s.expires_at <= now()
        returning 1
      ), bucket as (
        insert into rate_buckets as b (key_id, tokens, refilled_at, allowed)
        values (?, ${limit.burst - 1}::float8, clock_timestamp(), true)
        on conflict (key_id) do update set
          tokens = case when ${refilled} >= 1 then ${refilled} - 1 else ${refilled} end,
          allowed = ${refilled} >= 1,
          refilled_at = clock_timestamp()
        returning tokens, allowed
      ), touch as (
        update api_keys set last_used_at = now()
        where id = ? and (last_used_at is null or last_used_at < now() - interval '60 seconds')
        returning 1
      )
      select (select count(*) from sig)::int as fresh, bucket.tokens, bucket.allowed from bucket`;
  }

  async admit(req: AdmissionRequest): Promise<Admission> {
    const rows = await this.orm.em
      .getConnection()
      .execute<{ fresh: number; tokens: number; allowed: boolean }[]>(this.sql, [
        req.keyId,
        req.signature,
        req.signatureExpiresAt,
        req.keyId,
        req.apiKeyId,
      ]);
    const row = rows[0]!;
    return {
      replayed: row.fresh === 0,
      retryAfterSeconds: row.allowed ? null : Math.max(1, Math.ceil((1 - row.tokens) / this.limit.perSecond)),
    };
  }

  async purgeExpired(now: Date): Promise<number> {
    const res = await this.orm.em
      .getConnection()
      .execute(`delete from request_signatures where expires_at <= ?`, [now], 'run');
    return (res as { affectedRows?: number }).affectedRows ?? 0;
  }
}
