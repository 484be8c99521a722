import { Migration } from '@mikro-orm/migrations';

export class Migration20261123235120_deposits extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "chain_blocks" ("network" text not null, "number" bigint not null, "hash" text not null, "parent_hash" text not null, constraint "chain_blocks_pkey" primary key ("network", "number"));`);

    this.addSql(`create table "chain_cursors" ("network" text not null, "next_block" bigint null, "lease_owner" text null, "lease_until" timestamptz null, "updated_at" timestamptz not null, constraint "chain_cursors_pkey" primary key ("network"));`);

    this.addSql(`create table "screening_denylist" ("chain" text not null, "address" text not null, "created_at" timestamptz not null, constraint "screening_denylist_pkey" primary key ("chain", "address"));`);

    this.addSql(`create table "deposits" ("id" uuid not null, "workspace_id" uuid not null, "wallet_id" uuid not null, "customer_id" uuid null, "network" text not null, "asset" text not null, "txid" text not null, "log_index" int not null, "from_address" text not null, "to_address" text not null, "chain_amount" numeric(78,0) not null, "amount" numeric(78,0) not null, "block_number" bigint not null, "block_hash" text not null, "status" text check ("status" in ('DETECTED', 'CONFIRMING', 'CONFIRMED', 'SWEPT', 'FAILED', 'FLAGGED', 'REJECTED')) not null, "confirmations" int not null, "required_confirmations" int not null, "fee_amount" numeric(78,0) null, "net_amount" numeric(78,0) null, "applied_rate_ppm" numeric(78,0) null, "applied_min_fee" numeric(78,0) null, "detected_at" timestamptz not null, "confirmed_at" timestamptz null, "swept_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "deposits_pkey" primary key ("id"));`);
    this.addSql(`create index "deposits_list_idx" on "deposits" ("workspace_id", "network", "created_at");`);
    this.addSql(`create index "deposits_wallet_idx" on "deposits" ("wallet_id");`);
    this.addSql(`create index "deposits_scan_idx" on "deposits" ("network", "status", "block_number");`);
    this.addSql(`alter table "deposits" add constraint "deposits_identity_unique" unique ("network", "txid", "log_index");`);

    this.addSql(`alter table "deposits" add constraint "deposits_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "deposits" add constraint "deposits_wallet_id_foreign" foreign key ("wallet_id") references "wallets" ("id") on update cascade on delete no action;`);

    this.addSql(`alter table "ledger_accounts" drop constraint if exists "ledger_accounts_kind_check";`);

    this.addSql(`alter table "ledger_accounts" add constraint "ledger_accounts_kind_check" check("kind" in ('AVAILABLE', 'LOCKED', 'REVENUE', 'GAS', 'TREASURY', 'FAUCET', 'EXTERNAL', 'RECEIVABLE'));`);

    this.addSql(`create index "wallets_network_created_idx" on "wallets" ("network", "created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "chain_blocks" cascade;`);

    this.addSql(`drop table if exists "chain_cursors" cascade;`);

    this.addSql(`drop table if exists "screening_denylist" cascade;`);

    this.addSql(`drop table if exists "deposits" cascade;`);

    this.addSql(`alter table "ledger_accounts" drop constraint if exists "ledger_accounts_kind_check";`);

    this.addSql(`alter table "ledger_accounts" add constraint "ledger_accounts_kind_check" check("kind" in ('AVAILABLE', 'LOCKED', 'REVENUE', 'GAS', 'TREASURY', 'FAUCET', 'EXTERNAL'));`);

    this.addSql(`drop index "wallets_network_created_idx";`);
  }

}
