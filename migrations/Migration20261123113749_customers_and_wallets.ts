import { Migration } from '@mikro-orm/migrations';

export class Migration20261123113749_customers_and_wallets extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "network_switches" ("network" text not null, "enabled" boolean not null, "updated_at" timestamptz not null, constraint "network_switches_pkey" primary key ("network"));`);

    this.addSql(`create table "hd_accounts" ("account" serial primary key, "workspace_id" uuid not null, "network" text not null, "next_index" int not null default 0);`);
    this.addSql(`alter table "hd_accounts" add constraint "hd_accounts_workspace_network_unique" unique ("workspace_id", "network");`);

    this.addSql(`create table "customers" ("id" uuid not null, "workspace_id" uuid not null, "side" text check ("side" in ('live', 'test')) not null, "external_ref" text not null, "label" text null, "metadata" jsonb null, "status" text check ("status" in ('ACTIVE', 'ARCHIVED')) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "customers_pkey" primary key ("id"));`);
    this.addSql(`create index "customers_list_idx" on "customers" ("workspace_id", "side", "created_at");`);
    this.addSql(`alter table "customers" add constraint "customers_external_ref_unique" unique ("workspace_id", "side", "external_ref");`);

    this.addSql(`create table "wallets" ("id" uuid not null, "workspace_id" uuid not null, "network" text not null, "asset" text not null, "address" text not null, "derivation_account" int not null, "derivation_index" int not null, "status" text check ("status" in ('ACTIVE', 'SWEPT', 'ARCHIVED')) not null, "customer_id" uuid null, "external_ref_ciphertext" text null, "created_at" timestamptz not null, constraint "wallets_pkey" primary key ("id"));`);
    this.addSql(`create index "wallets_list_idx" on "wallets" ("workspace_id", "network", "created_at");`);
    this.addSql(`create index "wallets_customer_idx" on "wallets" ("customer_id");`);
    this.addSql(`alter table "wallets" add constraint "wallets_address_unique" unique ("network", "address");`);
    this.addSql(`alter table "wallets" add constraint "wallets_derivation_unique" unique ("derivation_account", "derivation_index");`);

    this.addSql(`alter table "hd_accounts" add constraint "hd_accounts_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "customers" add constraint "customers_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "wallets" add constraint "wallets_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "wallets" add constraint "wallets_derivation_account_foreign" foreign key ("derivation_account") references "hd_accounts" ("account") on update cascade on delete no action;`);
    this.addSql(`alter table "wallets" add constraint "wallets_customer_id_foreign" foreign key ("customer_id") references "customers" ("id") on update cascade on delete no action;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "wallets" drop constraint "wallets_derivation_account_foreign";`);

    this.addSql(`alter table "wallets" drop constraint "wallets_customer_id_foreign";`);

    this.addSql(`drop table if exists "network_switches" cascade;`);

    this.addSql(`drop table if exists "hd_accounts" cascade;`);

    this.addSql(`drop table if exists "customers" cascade;`);

    this.addSql(`drop table if exists "wallets" cascade;`);
  }

}
