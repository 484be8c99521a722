import { Migration } from '@mikro-orm/migrations';

export class Migration20261126092323_faucet extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "faucet_asset_limits" ("asset" text not null, "default_amount" numeric(78,0) not null, "cap" numeric(78,0) not null, "budget" numeric(78,0) null, "updated_at" timestamptz not null, constraint "faucet_asset_limits_pkey" primary key ("asset"));`);

    this.addSql(`create table "faucet_settings" ("id" int not null, "max_items" int not null, "drips_per_hour" int not null, "updated_at" timestamptz not null, constraint "faucet_settings_pkey" primary key ("id"));`);

    this.addSql(`create table "faucet_drips" ("id" uuid not null, "workspace_id" uuid not null, "network" text not null, "wallet_id" uuid not null, "address" text not null, "status" text check ("status" in ('QUEUED', 'SENDING', 'COMPLETED', 'FAILED')) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "faucet_drips_pkey" primary key ("id"));`);
    this.addSql(`create index "faucet_drips_workspace_idx" on "faucet_drips" ("workspace_id", "created_at");`);
    this.addSql(`create index "faucet_drips_work_idx" on "faucet_drips" ("network", "status", "created_at");`);

    this.addSql(`create table "faucet_drip_items" ("drip_id" uuid not null, "seq" int not null, "asset" text not null, "amount" numeric(78,0) not null, "status" text check ("status" in ('QUEUED', 'SENT', 'CONFIRMED', 'FAILED')) not null, "transfer_id" uuid null, constraint "faucet_drip_items_pkey" primary key ("drip_id", "seq"));`);
    this.addSql(`alter table "faucet_drip_items" add constraint "faucet_drip_items_transfer_unique" unique ("transfer_id");`);

    this.addSql(`alter table "faucet_drips" add constraint "faucet_drips_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "faucet_drip_items" add constraint "faucet_drip_items_drip_id_foreign" foreign key ("drip_id") references "faucet_drips" ("id") on update cascade on delete cascade;`);

    // Hand-written: the faucet-wide settings are one row.
    this.addSql(`alter table "faucet_settings" add constraint "faucet_settings_one_row" check ("id" = 1);`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "faucet_drip_items" drop constraint "faucet_drip_items_drip_id_foreign";`);

    this.addSql(`drop table if exists "faucet_asset_limits" cascade;`);

    this.addSql(`drop table if exists "faucet_settings" cascade;`);

    this.addSql(`drop table if exists "faucet_drips" cascade;`);

    this.addSql(`drop table if exists "faucet_drip_items" cascade;`);
  }

}
