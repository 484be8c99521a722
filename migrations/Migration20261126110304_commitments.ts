// The fee commitment (docs/adr/0030-fee-commitment.md): commitments, their
// pauses, one adjustment per settled month, and the operator's exchange rates.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261126110304_commitments extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "fx_rates" ("pair" text not null, "ppm" numeric(78,0) not null, "set_at" timestamptz not null, constraint "fx_rates_pkey" primary key ("pair"));`);

    this.addSql(`create table "commitments" ("id" uuid not null, "workspace_id" uuid not null, "monthly_floor" numeric(78,0) not null, "settlement_asset" text check ("settlement_asset" in ('USDT_TRON', 'USDT_BSC', 'USDT_ETH', 'USDC_ETH', 'EURC_ETH')) not null, "starts_at" timestamptz not null, "ends_at" timestamptz null, "status" text check ("status" in ('ACTIVE', 'SUSPENDED', 'ENDED')) not null, "auto_debit" boolean not null, "contract_reference" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "commitments_pkey" primary key ("id"));`);
    this.addSql(`create index "commitments_workspace_idx" on "commitments" ("workspace_id", "starts_at");`);

    this.addSql(`create table "commitment_pauses" ("commitment_id" uuid not null, "seq" int not null, "from_at" timestamptz not null, "until_at" timestamptz null, constraint "commitment_pauses_pkey" primary key ("commitment_id", "seq"));`);

    this.addSql(`create table "commitment_adjustments" ("id" uuid not null, "commitment_id" uuid not null, "workspace_id" uuid not null, "period_start" timestamptz not null, "period_end" timestamptz not null, "days_covered" int not null, "prorated_floor" numeric(78,0) not null, "billed_fees" numeric(78,0) not null, "delta" numeric(78,0) not null, "recovery_mode" text check ("recovery_mode" in ('AUTO_DEBIT', 'MANUAL')) not null, "debited" numeric(78,0) not null, "outstanding" numeric(78,0) not null, "status" text check ("status" in ('NOT_DUE', 'OPEN', 'SETTLED')) not null, "settled_at" timestamptz null, "eurc_usd_ppm" numeric(78,0) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "commitment_adjustments_pkey" primary key ("id"));`);
    this.addSql(`create index "commitment_adjustments_workspace_idx" on "commitment_adjustments" ("workspace_id", "status");`);
    this.addSql(`alter table "commitment_adjustments" add constraint "commitment_adjustments_month_unique" unique ("commitment_id", "period_start");`);

    this.addSql(`alter table "commitments" add constraint "commitments_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "commitment_pauses" add constraint "commitment_pauses_commitment_id_foreign" foreign key ("commitment_id") references "commitments" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "commitment_adjustments" add constraint "commitment_adjustments_commitment_id_foreign" foreign key ("commitment_id") references "commitments" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "commitment_pauses" drop constraint "commitment_pauses_commitment_id_foreign";`);

    this.addSql(`alter table "commitment_adjustments" drop constraint "commitment_adjustments_commitment_id_foreign";`);

    this.addSql(`drop table if exists "fx_rates" cascade;`);

    this.addSql(`drop table if exists "commitments" cascade;`);

    this.addSql(`drop table if exists "commitment_pauses" cascade;`);

    this.addSql(`drop table if exists "commitment_adjustments" cascade;`);
  }

}
