import { Migration } from '@mikro-orm/migrations';

export class Migration20261123111622_workspaces_and_keys extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "request_signatures" ("key_id" text not null, "signature" text not null, "expires_at" timestamptz not null, constraint "request_signatures_pkey" primary key ("key_id", "signature"));`);
    this.addSql(`create index "request_signatures_expires_idx" on "request_signatures" ("expires_at");`);

    this.addSql(`create table "workspaces" ("id" uuid not null, "name" text not null, "status" text check ("status" in ('ACTIVE', 'INACTIVE')) not null, "withdrawals_frozen" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "workspaces_pkey" primary key ("id"));`);

    this.addSql(`create table "api_keys" ("id" uuid not null, "workspace_id" uuid not null, "key_id" text not null, "label" text not null, "scopes" text[] not null, "permission" text check ("permission" in ('READ_ONLY', 'READ_WRITE')) null, "allowed_ips" text[] not null, "is_test" boolean not null, "secret_ciphertext" text not null, "last_used_at" timestamptz null, "expires_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, constraint "api_keys_pkey" primary key ("id"));`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_id_unique" unique ("key_id");`);
    this.addSql(`create index "api_keys_workspace_idx" on "api_keys" ("workspace_id", "created_at");`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "api_keys" drop constraint "api_keys_workspace_id_foreign";`);

    this.addSql(`drop table if exists "request_signatures" cascade;`);

    this.addSql(`drop table if exists "workspaces" cascade;`);

    this.addSql(`drop table if exists "api_keys" cascade;`);
  }

}
