import { Migration } from '@mikro-orm/migrations';

export class Migration20261123100000_workspaces_and_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "workspaces" (
        "id" uuid not null primary key,
        "name" text not null,
        "status" text not null check ("status" in ('ACTIVE', 'INACTIVE')),
        "withdrawals_frozen" boolean not null default false,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(`
      create table "api_keys" (
        "id" uuid not null primary key,
        "workspace_id" uuid not null references "workspaces" ("id") on delete cascade,
        "key_id" text not null unique,
        "label" text not null,
        "scopes" text[] not null,
        "permission" text null check ("permission" in ('READ_ONLY', 'READ_WRITE')),
        "allowed_ips" text[] not null,
        "is_test" boolean not null,
        "secret_ciphertext" text not null,
        "last_used_at" timestamptz null,
        "expires_at" timestamptz null,
        "revoked_at" timestamptz null,
        "created_at" timestamptz not null
      );`);
    this.addSql(`create index "api_keys_workspace_idx" on "api_keys" ("workspace_id", "created_at" desc);`);
    // Signatures seen inside the replay window, shared by every api process.
    this.addSql(`
      create table "request_signatures" (
        "key_id" text not null,
        "signature" text not null,
        "expires_at" timestamptz not null,
        primary key ("key_id", "signature")
      );`);
    this.addSql(`create index "request_signatures_expires_idx" on "request_signatures" ("expires_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "request_signatures";`);
    this.addSql(`drop table if exists "api_keys";`);
    this.addSql(`drop table if exists "workspaces";`);
  }
}
