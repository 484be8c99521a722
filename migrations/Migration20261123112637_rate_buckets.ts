import { Migration } from '@mikro-orm/migrations';

export class Migration20261123112637_rate_buckets extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "rate_buckets" ("key_id" text not null, "tokens" double precision not null, "refilled_at" timestamptz not null, "allowed" boolean not null, constraint "rate_buckets_pkey" primary key ("key_id"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "rate_buckets" cascade;`);
  }

}
