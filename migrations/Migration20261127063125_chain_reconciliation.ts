import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 30: the reconciliation with the chain (its runs, and networks whose payouts wait for an
 * operator), and replacements a node refused (never broadcast again).
 */
export class Migration20261127063125_chain_reconciliation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "chain_reconciliations" ("id" uuid not null, "network" text not null, "asset" text not null, "block" bigint not null, "expected" numeric(78,0) not null, "on_chain" numeric(78,0) not null, "difference" numeric(78,0) not null, "involved" jsonb not null, "at" timestamptz not null, constraint "chain_reconciliations_pkey" primary key ("id"));`);
    this.addSql(`create index "chain_reconciliations_latest_idx" on "chain_reconciliations" ("network", "asset", "at");`);
    this.addSql(`create table "payout_holds" ("network" text not null, "reason" text not null, "held_at" timestamptz not null, constraint "payout_holds_pkey" primary key ("network"));`);
    this.addSql(`alter table "transfer_attempts" add column "refused_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "transfer_attempts" drop column "refused_at";`);
    this.addSql(`drop table if exists "payout_holds" cascade;`);
    this.addSql(`drop table if exists "chain_reconciliations" cascade;`);
  }
}
