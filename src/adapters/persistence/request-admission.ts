// RequestAdmission in PostgreSQL, in ONE statement per request (ADR 0008):
// the credential still as read (its version), the signature insert (its
// primary key decides a replay, no read first), the key's token bucket
// (refilled by elapsed time, capped at the burst, under the row lock the
// upsert takes, so N api processes share one limit) and last_used_at (written
// at most once a minute per key). The same statement reads the networks'
// switches for the rest of the request (request-snapshot.ts).
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Admission, AdmissionRequest, RequestAdmission } from '../../domain/ports.js';
import { CREDENTIAL_VERSION_SQL } from './credential-version.js';
import { requestSnapshot } from './request-snapshot.js';
import { executeBound } from './sql.js';

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
    // Every write is gated on the credential still being what the request was checked against (`cred`): a key
    // revoked, narrowed or given a new secret, or its workspace deactivated, since it was read admits nothing.
    this.sql = `
      with cred as (
        select 1 from api_keys k left join workspaces w on w.id = k.workspace_id
        where k.id = ?::uuid and ${CREDENTIAL_VERSION_SQL} = ?::text
      ), sig as (
        insert into request_signatures as s (key_id, signature, expires_at) select ?::text, ?::text, ?::timestamptz where exists (select 1 from cred)
        on conflict (key_id, signature) do update set expires_at = excluded.expires_at
          where s.expires_at <= now()
        returning 1
      ), bucket as (
        insert into rate_buckets as b (key_id, tokens, refilled_at, allowed)
        select ?::text, ${limit.burst - 1}::float8, clock_timestamp(), true where exists (select 1 from cred)
        on conflict (key_id) do update set
          tokens = case when ${refilled} >= 1 then ${refilled} - 1 else ${refilled} end,
          allowed = ${refilled} >= 1,
          refilled_at = clock_timestamp()
        returning tokens, allowed
      ), touch as (
        update api_keys set last_used_at = now()
        where id = ?::uuid and (last_used_at is null or last_used_at < now() - interval '60 seconds') and exists (select 1 from cred)
        returning 1
      )
      select exists (select 1 from cred) as current, (select count(*) from sig)::int as fresh,
             (select tokens from bucket) as tokens, (select allowed from bucket) as allowed,
             (select coalesce(json_object_agg(network, enabled), '{}'::json) from network_switches)::text as switches`;
  }

  async admit(req: AdmissionRequest): Promise<Admission> {
    // Outside any transaction (the request's own statement), prepared: the same text on every request.
    const rows = await executeBound<{ current: boolean; fresh: number; tokens: number | null; allowed: boolean | null; switches: string }>(
      this.orm.em,
      this.sql,
      [req.apiKeyId, req.credentialVersion, req.keyId, req.signature, req.signatureExpiresAt, req.keyId, req.apiKeyId],
      { prepare: true },
    );
    const row = rows[0]!;
    const snapshot = requestSnapshot();
    if (snapshot) snapshot.switches = JSON.parse(row.switches) as Record<string, boolean>;
    if (!row.current) return { stale: true, replayed: false, retryAfterSeconds: null };
    return {
      stale: false,
      replayed: row.fresh === 0,
      retryAfterSeconds: row.allowed ? null : Math.max(1, Math.ceil((1 - row.tokens!) / this.limit.perSecond)),
    };
  }

  async purgeExpired(now: Date): Promise<number> {
    const res = await this.orm.em
      .getConnection()
      .execute(`delete from request_signatures where expires_at <= ?`, [now], 'run');
    return (res as { affectedRows?: number }).affectedRows ?? 0;
  }
}
