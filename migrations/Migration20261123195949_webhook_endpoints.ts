import { Migration } from '@mikro-orm/migrations';

export class Migration20261123195949_webhook_endpoints extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "webhook_endpoints" ("id" uuid not null, "workspace_id" uuid not null, "side" text check ("side" in ('live', 'test')) not null, "url" text not null, "events" text[] not null, "is_active" boolean not null, "secret_ciphertext" text not null, "previous_secret_ciphertext" text null, "previous_secret_expires_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "webhook_endpoints_pkey" primary key ("id"));`);
    this.addSql(`create index "webhook_endpoints_list_idx" on "webhook_endpoints" ("workspace_id", "side", "created_at");`);

    this.addSql(`create table "webhook_deliveries" ("id" uuid not null, "endpoint_id" uuid not null, "event" text not null, "status" text check ("status" in ('PENDING', 'DELIVERED', 'FAILED')) not null, "payload" text not null, "attempts" int not null, "response_status" int null, "last_error" text null, "created_at" timestamptz not null, "last_attempt_at" timestamptz null, "next_attempt_at" timestamptz null, "delivered_at" timestamptz null, constraint "webhook_deliveries_pkey" primary key ("id"));`);
    this.addSql(`create index "webhook_deliveries_endpoint_idx" on "webhook_deliveries" ("endpoint_id", "created_at");`);
    this.addSql(`create index "webhook_deliveries_status_idx" on "webhook_deliveries" ("endpoint_id", "status");`);

    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_endpoint_id_foreign";`);

    this.addSql(`drop table if exists "webhook_endpoints" cascade;`);

    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
  }

}
