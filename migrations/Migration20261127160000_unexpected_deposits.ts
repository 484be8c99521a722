import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 31: money that arrives where no wallet watches it — `unexpected_deposits`, kept apart from
 * deposits until the operator credits it or returns it — the transfer kind of a return (UNEXPECTED_RETURN), and
 * what a return sweep sends back and to whom.
 */
export class Migration20261127160000_unexpected_deposits extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "unexpected_deposits" ("id" uuid not null, "network" text not null, "asset" text not null, "wallet_id" uuid not null, "workspace_id" uuid not null, "wallet_asset" text not null, "txid" text not null, "log_index" int not null, "from_address" text not null, "to_address" text not null, "chain_amount" numeric(78,0) not null, "block_number" bigint not null, "block_hash" text not null, "status" text check ("status" in ('LISTED', 'CREDITED', 'RETURNING', 'RETURNED')) not null, "deposit_id" uuid null, "return_transfer_id" uuid null, "detected_at" timestamptz not null, "resolved_at" timestamptz null, constraint "unexpected_deposits_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "unexpected_deposits_status_idx" on "unexpected_deposits" ("status", "detected_at");`);
    this.addSql(`create index "unexpected_deposits_deposit_idx" on "unexpected_deposits" ("deposit_id");`);
    this.addSql(`create index "unexpected_deposits_return_idx" on "unexpected_deposits" ("return_transfer_id");`);
    this.addSql(`alter table "unexpected_deposits" add constraint "unexpected_deposits_identity_unique" unique ("network", "txid", "log_index");`);
    this.addSql(`alter table "unexpected_deposits" add constraint "unexpected_deposits_wallet_id_foreign" foreign key ("wallet_id") references "wallets" ("id") on update cascade on delete no action;`);
    this.addSql(`alter table "unexpected_deposits" add constraint "unexpected_deposits_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "outgoing_transfers" drop constraint if exists "outgoing_transfers_kind_check";`);
    this.addSql(
      `alter table "outgoing_transfers" add constraint "outgoing_transfers_kind_check" check("kind" in ('GAS_TOPUP', 'SWEEP', 'WITHDRAWAL', 'FAUCET', 'COLD_FORWARD', 'UNEXPECTED_RETURN'));`,
    );
    // A return sweep sends one arrival back to its sender.
    this.addSql(`alter table "sweeps" add column "return_of" uuid null, add column "return_to" text null, add column "return_amount" numeric(78,0) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "sweeps" drop column "return_of", drop column "return_to", drop column "return_amount";`);
    this.addSql(`alter table "outgoing_transfers" drop constraint if exists "outgoing_transfers_kind_check";`);
    this.addSql(`alter table "outgoing_transfers" add constraint "outgoing_transfers_kind_check" check("kind" in ('GAS_TOPUP', 'SWEEP', 'WITHDRAWAL', 'FAUCET', 'COLD_FORWARD'));`);
    this.addSql(`drop table if exists "unexpected_deposits" cascade;`);
  }
}
