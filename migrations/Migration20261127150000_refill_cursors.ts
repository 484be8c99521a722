import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 31: where the chain-worker has read each network's chain for refills from the cold address to the
 * hot treasury (the next block to read, at the confirmation depth).
 */
export class Migration20261127150000_refill_cursors extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "refill_cursors" ("network" text not null, "next_block" bigint not null, "updated_at" timestamptz not null, constraint "refill_cursors_pkey" primary key ("network"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "refill_cursors" cascade;`);
  }
}
