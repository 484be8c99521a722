import { Migration } from '@mikro-orm/migrations';

export class Migration20261123115402_ledger_and_fees extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "fee_tiers" ("name" text not null, "min_volume_usd" numeric(78,0) not null, "deposit_rate_ppm" int not null, constraint "fee_tiers_pkey" primary key ("name"));`);

    this.addSql(`create table "journal_entries" ("id" uuid not null, "kind" text not null, "reference" text not null, "workspace_id" uuid null, "network" text not null, "asset" text not null, "created_at" timestamptz not null, constraint "journal_entries_pkey" primary key ("id"));`);
    this.addSql(`create index "journal_entries_workspace_idx" on "journal_entries" ("workspace_id", "kind", "created_at");`);
    this.addSql(`alter table "journal_entries" add constraint "journal_entries_reference_unique" unique ("reference");`);

    this.addSql(`create table "ledger_accounts" ("id" serial primary key, "owner" text not null, "kind" text check ("kind" in ('AVAILABLE', 'LOCKED', 'REVENUE', 'GAS', 'TREASURY', 'FAUCET', 'EXTERNAL')) not null, "network" text not null, "asset" text not null, "balance" numeric(78,0) not null default 0);`);
    this.addSql(`alter table "ledger_accounts" add constraint "ledger_accounts_identity_unique" unique ("owner", "kind", "network", "asset");`);

    this.addSql(`create table "postings" ("id" serial primary key, "entry_id" uuid not null, "account_id" int not null, "amount" numeric(78,0) not null);`);
    this.addSql(`create index "postings_account_idx" on "postings" ("account_id");`);
    this.addSql(`create index "postings_entry_idx" on "postings" ("entry_id");`);

    this.addSql(`create table "fee_overrides" ("workspace_id" uuid not null, "deposit_rate_ppm" int not null, "expires_at" timestamptz not null, constraint "fee_overrides_pkey" primary key ("workspace_id"));`);

    this.addSql(`alter table "postings" add constraint "postings_entry_id_foreign" foreign key ("entry_id") references "journal_entries" ("id") on update cascade on delete no action;`);
    this.addSql(`alter table "postings" add constraint "postings_account_id_foreign" foreign key ("account_id") references "ledger_accounts" ("id") on update cascade on delete no action;`);

    this.addSql(`alter table "fee_overrides" add constraint "fee_overrides_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "postings" drop constraint "postings_entry_id_foreign";`);

    this.addSql(`alter table "postings" drop constraint "postings_account_id_foreign";`);

    this.addSql(`drop table if exists "fee_tiers" cascade;`);

    this.addSql(`drop table if exists "journal_entries" cascade;`);

    this.addSql(`drop table if exists "ledger_accounts" cascade;`);

    this.addSql(`drop table if exists "postings" cascade;`);

    this.addSql(`drop table if exists "fee_overrides" cascade;`);
  }

}
