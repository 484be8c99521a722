import { Migration } from '@mikro-orm/migrations';

export class Migration20261125191112_withdrawals extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "withdrawals" ("id" uuid not null, "workspace_id" uuid not null, "network" text not null, "asset" text not null, "amount" numeric(78,0) not null, "fee" numeric(78,0) not null, "net_amount" numeric(78,0) not null, "destination" text not null, "status" text check ("status" in ('PENDING_APPROVAL', 'PENDING', 'UNDER_REVIEW', 'PROCESSING', 'CONFIRMING', 'CONFIRMED', 'FAILED', 'CANCELLED')) not null, "idempotency_key" text null, "transfer_id" uuid null, "txid" text null, "failure" text null, "requested_at" timestamptz not null, "confirmed_at" timestamptz null, "updated_at" timestamptz not null, constraint "withdrawals_pkey" primary key ("id"));`);
    this.addSql(`create index "withdrawals_list_idx" on "withdrawals" ("workspace_id", "network", "requested_at");`);
    this.addSql(`create index "withdrawals_work_idx" on "withdrawals" ("network", "status", "requested_at");`);
    this.addSql(`alter table "withdrawals" add constraint "withdrawals_transfer_unique" unique ("transfer_id");`);

    this.addSql(`alter table "withdrawals" add constraint "withdrawals_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    // Hand-written (not expressible in the entity schema): what the chain-worker picks up next.
    this.addSql(`create index "withdrawals_ready_idx" on "withdrawals" ("network", "requested_at") where "status" = 'PENDING' and "transfer_id" is null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "withdrawals" cascade;`);
  }

}
