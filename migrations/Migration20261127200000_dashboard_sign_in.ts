import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 32: signing in to the owner's dashboard — each member's TOTP factor and recovery codes, the sessions
 * (`member_sessions`, the cookie's token kept as its hash), the lockout's failure counts (`sign_in_failures`),
 * the audit log (`member_audit`), the approval quorum of the withdrawal policy and who approved what
 * (`withdrawal_approvals`, one row per member and withdrawal).
 */
export class Migration20261127200000_dashboard_sign_in extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "workspace_members" add column "totp_secret" text null, add column "totp_last_step" bigint null, add column "recovery_codes" jsonb not null default '[]';`);
    this.addSql(`create table "sign_in_failures" ("id" uuid not null, "email" text not null, "source" text not null, "at" timestamptz not null, constraint "sign_in_failures_pkey" primary key ("id"));`);
    this.addSql(`create index "sign_in_failures_source_idx" on "sign_in_failures" ("source", "at");`);
    this.addSql(`create index "sign_in_failures_pair_idx" on "sign_in_failures" ("email", "source", "at");`);
    this.addSql(`create table "member_audit" ("id" uuid not null, "workspace_id" uuid not null, "member_id" uuid null, "actor" text not null, "source" text not null, "action" text not null, "target" text null, "before" jsonb null, "after" jsonb null, "at" timestamptz not null, constraint "member_audit_pkey" primary key ("id"));`);
    this.addSql(`create index "member_audit_workspace_idx" on "member_audit" ("workspace_id", "at");`);
    this.addSql(`alter table "member_audit" add constraint "member_audit_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`create table "withdrawal_approvals" ("withdrawal_id" uuid not null, "member_id" uuid not null, "approved_at" timestamptz not null, constraint "withdrawal_approvals_pkey" primary key ("withdrawal_id", "member_id"));`);
    this.addSql(`alter table "withdrawal_approvals" add constraint "withdrawal_approvals_withdrawal_id_foreign" foreign key ("withdrawal_id") references "withdrawals" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "withdrawal_approvals" add constraint "withdrawal_approvals_member_id_foreign" foreign key ("member_id") references "workspace_members" ("id") on update cascade on delete cascade;`);
    this.addSql(`create table "member_sessions" ("id" uuid not null, "member_id" uuid not null, "workspace_id" uuid not null, "token_hash" text not null, "csrf_token" text not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, "ended_at" timestamptz null, "source" text not null, constraint "member_sessions_pkey" primary key ("id"));`);
    this.addSql(`create index "member_sessions_member_idx" on "member_sessions" ("member_id");`);
    this.addSql(`alter table "member_sessions" add constraint "member_sessions_token_unique" unique ("token_hash");`);
    this.addSql(`alter table "member_sessions" add constraint "member_sessions_member_id_foreign" foreign key ("member_id") references "workspace_members" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "member_sessions" add constraint "member_sessions_workspace_id_foreign" foreign key ("workspace_id") references "workspaces" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "withdrawal_policies" add column "approval_quorum" int not null default 1;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "withdrawal_policies" drop column "approval_quorum";`);
    this.addSql(`drop table if exists "member_sessions" cascade;`);
    this.addSql(`drop table if exists "withdrawal_approvals" cascade;`);
    this.addSql(`drop table if exists "member_audit" cascade;`);
    this.addSql(`drop table if exists "sign_in_failures" cascade;`);
    this.addSql(`alter table "workspace_members" drop column "totp_secret", drop column "totp_last_step", drop column "recovery_codes";`);
  }
}
