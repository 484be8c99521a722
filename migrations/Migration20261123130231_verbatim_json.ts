import { Migration } from '@mikro-orm/migrations';

export class Migration20261123130231_verbatim_json extends Migration {

  override async up(): Promise<void> {
    // Kept as sent: a replay is byte-identical, metadata keeps its key order.
    this.addSql(`alter table "idempotency_keys" alter column "response_body" type text using ("response_body"::text);`);
    this.addSql(`alter table "customers" alter column "metadata" type json using ("metadata"::json);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "idempotency_keys" alter column "response_body" type jsonb using ("response_body"::jsonb);`);
    this.addSql(`alter table "customers" alter column "metadata" type jsonb using ("metadata"::jsonb);`);
  }

}
