import { Migration } from '@mikro-orm/migrations';

export class Migration20261123205841_webhook_dispatch extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "withdrawal_policies" ("workspace_id" uuid not null, "cooling_off_hours" int null, "per_tx_limit" numeric(78,18) null, "daily_limit" numeric(78,18) null, "approval_above" numeric(78,18) null, "updated_at" timestamptz not null, constraint "withdrawal_policies_pkey" primary key ("workspace_id"));`);

    this.addSql(`create table "webhook_events" ("id" uuid not null, "workspace_id" uuid not null, "side" text check ("side" in ('live', 'test')) not null, "event" text not null, "payload" text not null, "created_at" timestamptz not null, constraint "webhook_events_pkey" primary key ("id"));`);
    this.addSql(`create index "webhook_events_event_idx" on "webhook_events" ("event", "created_at");`);

    this.addSql(`create table "webhook_notices" ("endpoint_id" uuid not null, "sent_at" timestamptz not null, constraint "webhook_notices_pkey" primary key ("endpoint_id"));`);

    this.addSql(`create table "beneficiaries" ("id" uuid not null, "workspace_id" uuid not null, "chain" text null, "address" text not null, "added_at" timestamptz not null, constraint "beneficiaries_pkey" primary key ("id"));`);
    this.addSql(`create index "beneficiaries_workspace_idx" on "beneficiaries" ("workspace_id", "chain", "address");`);

    this.addSql(`alter table "webhook_events" add constraint "webhook_events_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "webhook_notices" add constraint "webhook_notices_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "beneficiaries" add constraint "beneficiaries_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "workspaces" add column "contact_email" text null;`);

    this.addSql(`alter table "webhook_deliveries" add column "event_id" uuid not null, add column "max_attempts" int not null default 5, add column "failed_at" timestamptz null, add column "lease_until" timestamptz null, add column "lease_token" uuid null;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_event_id_foreign" foreign key ("event_id") references "webhook_events" ("id") on update cascade;`);
    this.addSql(`create index "webhook_deliveries_due_idx" on "webhook_deliveries" ("status", "next_attempt_at");`);
    this.addSql(`create index "webhook_deliveries_event_idx" on "webhook_deliveries" ("event_id", "endpoint_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_event_id_foreign";`);

    this.addSql(`drop table if exists "withdrawal_policies" cascade;`);

    this.addSql(`drop table if exists "webhook_events" cascade;`);

    this.addSql(`drop table if exists "webhook_notices" cascade;`);

    this.addSql(`drop table if exists "beneficiaries" cascade;`);

    this.addSql(`drop index "webhook_deliveries_due_idx";`);
    this.addSql(`drop index "webhook_deliveries_event_idx";`);
    this.addSql(`alter table "webhook_deliveries" drop column "event_id", drop column "max_attempts", drop column "failed_at", drop column "lease_until", drop column "lease_token";`);

    this.addSql(`alter table "workspaces" drop column "contact_email";`);
  }

}
