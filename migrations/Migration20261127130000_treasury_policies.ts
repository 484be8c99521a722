import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 31: the operator's treasury policy per network and asset (cold address, ceiling, target float,
 * floor, cooling-off; a cold address change waits for its cooling-off) and the history of its changes.
 */
export class Migration20261127130000_treasury_policies extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "treasury_policies" ("network" text not null, "asset" text not null, "cold_address" text null, "ceiling" numeric(78,0) not null, "target_float" numeric(78,0) not null, "floor" numeric(78,0) not null, "cooling_off_hours" int not null, "pending_cold_address" text null, "pending_cooling_off_hours" int null, "pending_requested_at" timestamptz null, "pending_effective_at" timestamptz null, "updated_at" timestamptz not null, constraint "treasury_policies_pkey" primary key ("network", "asset"));`,
    );
    this.addSql(
      `create table "treasury_policy_events" ("id" uuid not null, "network" text not null, "asset" text not null, "kind" text not null, "detail" jsonb not null, "at" timestamptz not null, constraint "treasury_policy_events_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "treasury_policy_events_policy_idx" on "treasury_policy_events" ("network", "asset", "at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "treasury_policy_events" cascade;`);
    this.addSql(`drop table if exists "treasury_policies" cascade;`);
  }
}
