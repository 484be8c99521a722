import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 30: what an operator looked at before letting a network's payouts go on (ops payouts resume):
 * the differences and the items then, which do not hold the payouts again.
 */
export class Migration20261127093000_reconciliation_acks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "reconciliation_acks" ("network" text not null, "asset" text not null, "difference" numeric(78,0) not null, "items" jsonb not null, "at" timestamptz not null, constraint "reconciliation_acks_pkey" primary key ("network", "asset"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "reconciliation_acks" cascade;`);
  }
}
