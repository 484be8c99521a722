import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 35: an idempotent request's guard in one round trip. The function takes the scope's transaction-scoped
 * advisory lock and, only when it got it, looks the record up. It is VOLATILE, so its lookup runs on a snapshot
 * taken after the lock (PostgreSQL: a volatile function's statements each take a fresh snapshot in READ
 * COMMITTED): a first request that committed its record and so released the lock just before is seen, which a
 * lookup in the calling statement (its snapshot taken before the lock) could miss.
 */
export class Migration20261128190000_idempotency_claim extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function idempotency_claim(lock_name text, ws uuid, side_ text, method_ text, path_ text, key_ text, at timestamptz)
  returns table (locked boolean, fingerprint text, response_status int, response_body text, created_at timestamptz, expires_at timestamptz)
  language plpgsql volatile as $fn$
begin
  if not pg_try_advisory_xact_lock(hashtextextended(lock_name, 0)) then
    return query select false, null::text, null::int, null::text, null::timestamptz, null::timestamptz;
    return;
  end if;
  return query select true, k.fingerprint, k.response_status, k.response_body, k.created_at, k.expires_at
    from idempotency_keys k
   where k.workspace_id = ws and k.side = side_ and k.method = method_ and k.path = path_ and k.key = key_ and k.expires_at > at;
  if not found then
    return query select true, null::text, null::int, null::text, null::timestamptz, null::timestamptz;
  end if;
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists idempotency_claim(text, uuid, text, text, text, text, timestamptz);`);
  }
}
