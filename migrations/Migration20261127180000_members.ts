import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 32: the owner's dashboard — the members of a workspace with their role (`workspace_members`, one per
 * email) and the one-time invitations that make them members (`member_invitations`, the token kept as its hash).
 */
export class Migration20261127180000_members extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "workspace_members" ("id" uuid not null, "workspace_id" uuid not null, "email" text not null, "role" text check ("role" in ('OWNER', 'APPROVER', 'VIEWER')) not null, "password_hash" text null, "created_at" timestamptz not null, constraint "workspace_members_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "workspace_members" add constraint "workspace_members_email_unique" unique ("workspace_id", "email");`);
    this.addSql(
      `create table "member_invitations" ("id" uuid not null, "workspace_id" uuid not null, "email" text not null, "role" text check ("role" in ('OWNER', 'APPROVER', 'VIEWER')) not null, "token_hash" text not null, "invited_by" uuid null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "accepted_at" timestamptz null, "revoked_at" timestamptz null, constraint "member_invitations_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "member_invitations_email_idx" on "member_invitations" ("workspace_id", "email");`);
    this.addSql(`alter table "member_invitations" add constraint "member_invitations_token_unique" unique ("token_hash");`);
    this.addSql(`alter table "workspace_members" add constraint "workspace_members_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "member_invitations" add constraint "member_invitations_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "member_invitations" cascade;`);
    this.addSql(`drop table if exists "workspace_members" cascade;`);
  }
}
