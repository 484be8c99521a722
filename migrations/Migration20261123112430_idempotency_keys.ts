import { Migration } from '@mikro-orm/migrations';

export class Migration20261123112430_idempotency_keys extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "idempotency_keys" ("workspace_id" uuid not null, "side" text not null, "method" text not null, "path" text not null, "key" text not null, "fingerprint" text not null, "response_status" int not null, "response_body" jsonb not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, constraint "idempotency_keys_pkey" primary key ("workspace_id", "side", "method", "path", "key"));`);
    this.addSql(`create index "idempotency_keys_expires_idx" on "idempotency_keys" ("expires_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
  }

}
