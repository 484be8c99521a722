import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 35: deposit address indexes taken ahead with their addresses, so that wallet creates claim one without
 * queueing on the account's row lock (ADR 0009).
 */
export class Migration20261128100000_address_pool extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "address_pool" ("account" int not null, "index" int not null, "address" text not null, constraint "address_pool_pkey" primary key ("account", "index"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "address_pool" cascade;`);
  }
}
