import { Migration } from '@mikro-orm/migrations';

export class Migration20261125145500_account_keys extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "hd_account_keys" ("coin_type" int not null, "account" int not null, "change" int not null, "xpub" text not null, "created_at" timestamptz not null, constraint "hd_account_keys_pkey" primary key ("coin_type", "account", "change"), constraint hd_account_keys_coin_type_check check (coin_type in (60, 195)), constraint hd_account_keys_change_check check ("change" in (0, 1)));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "hd_account_keys" cascade;`);
  }

}
