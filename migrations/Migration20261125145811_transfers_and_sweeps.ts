import { Migration } from '@mikro-orm/migrations';

export class Migration20261125145811_transfers_and_sweeps extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "outgoing_transfers" ("id" uuid not null, "kind" text check ("kind" in ('GAS_TOPUP', 'SWEEP', 'WITHDRAWAL', 'FAUCET')) not null, "network" text not null, "asset" text not null, "from_address" text not null, "from_path" text not null, "to_address" text not null, "amount" numeric(78,0) not null, "owner_id" uuid null, "gas_limit" numeric(78,0) null, "fee_cap" numeric(78,0) null, "status" text check ("status" in ('REQUESTED', 'SIGNED', 'BROADCAST', 'CONFIRMING', 'CONFIRMED', 'FAILED')) not null, "nonce" numeric(78,0) null, "included_txid" text null, "included_block" bigint null, "included_reverted" boolean null, "fee_paid" numeric(78,0) null, "failure" text null, "requested_at" timestamptz not null, "broadcast_at" timestamptz null, "confirmed_at" timestamptz null, "updated_at" timestamptz not null, constraint "outgoing_transfers_pkey" primary key ("id"));`);
    this.addSql(`create index "outgoing_transfers_work_idx" on "outgoing_transfers" ("network", "status", "requested_at");`);
    this.addSql(`create index "outgoing_transfers_sender_idx" on "outgoing_transfers" ("network", "from_address", "status");`);
    this.addSql(`create index "outgoing_transfers_owner_idx" on "outgoing_transfers" ("owner_id");`);
    this.addSql(`alter table "outgoing_transfers" add constraint "outgoing_transfers_sender_nonce_unique" unique ("network", "from_address", "nonce");`);

    this.addSql(`create table "sender_nonces" ("network" text not null, "address" text not null, "next_nonce" numeric(78,0) not null, constraint "sender_nonces_pkey" primary key ("network", "address"));`);

    this.addSql(`create table "sweep_policies" ("network" text not null, "asset" text not null, "minimum" numeric(78,0) not null, "interval_seconds" int not null, "last_run_at" timestamptz null, "updated_at" timestamptz not null, constraint "sweep_policies_pkey" primary key ("network", "asset"));`);

    this.addSql(`create table "transfer_attempts" ("transfer_id" uuid not null, "seq" int not null, "txid" text not null, "raw" text not null, "max_fee_per_gas" numeric(78,0) null, "max_priority_fee_per_gas" numeric(78,0) null, "expires_at" bigint null, "signed_at" timestamptz not null, constraint "transfer_attempts_pkey" primary key ("transfer_id", "seq"));`);
    this.addSql(`alter table "transfer_attempts" add constraint "transfer_attempts_txid_unique" unique ("txid");`);

    this.addSql(`create table "sweeps" ("id" uuid not null, "network" text not null, "asset" text not null, "wallet_id" uuid not null, "address" text not null, "address_path" text not null, "status" text check ("status" in ('WAITING_GAS', 'TOPPING_UP', 'SWEEPING', 'SWEPT', 'FAILED')) not null, "deposit_total" numeric(78,0) not null, "top_up_transfer_id" uuid null, "sweep_transfer_id" uuid null, "failure" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "sweeps_pkey" primary key ("id"));`);
    this.addSql(`create index "sweeps_work_idx" on "sweeps" ("network", "status");`);
    // Written by hand (an entity schema cannot say it): at most one open sweep per wallet.
    this.addSql(`create unique index "sweeps_one_open_per_wallet" on "sweeps" ("wallet_id") where "status" in ('WAITING_GAS', 'TOPPING_UP', 'SWEEPING');`);

    this.addSql(`alter table "transfer_attempts" add constraint "transfer_attempts_transfer_id_foreign" foreign key ("transfer_id") references "outgoing_transfers" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "sweeps" add constraint "sweeps_wallet_id_foreign" foreign key ("wallet_id") references "wallets" ("id") on update cascade on delete no action;`);

    this.addSql(`alter table "deposits" add column "sweep_id" uuid null;`);
    this.addSql(`create index "deposits_sweep_idx" on "deposits" ("sweep_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "transfer_attempts" drop constraint "transfer_attempts_transfer_id_foreign";`);

    this.addSql(`drop table if exists "outgoing_transfers" cascade;`);

    this.addSql(`drop table if exists "sender_nonces" cascade;`);

    this.addSql(`drop table if exists "sweep_policies" cascade;`);

    this.addSql(`drop table if exists "transfer_attempts" cascade;`);

    this.addSql(`drop table if exists "sweeps" cascade;`);

    this.addSql(`drop index "deposits_sweep_idx";`);
    this.addSql(`alter table "deposits" drop column "sweep_id";`);
  }

}
