import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 34: TRON energy (ADR 0035) — the operator's energy source per TRON network (`energy_policies`) and each
 * loan of energy from the energy account (`energy_delegations`), at most one open per sweep or payout.
 */
export class Migration20261128033724_energy extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "energy_delegations" ("id" uuid not null, "network" text not null, "from_address" text not null, "receiver" text not null, "stake" numeric(78,0) not null, "energy" numeric(78,0) not null, "purpose" text check ("purpose" in ('SWEEP', 'WITHDRAWAL', 'FAUCET')) not null, "purpose_id" uuid not null, "status" text check ("status" in ('DELEGATING', 'DELEGATED', 'RECLAIMING', 'RECLAIMED', 'CANCELLED')) not null, "delegate_transfer_id" uuid not null, "reclaim_transfer_id" uuid null, "reclaim_failures" int not null, "burn_equivalent" numeric(78,0) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "energy_delegations_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "energy_delegations_work_idx" on "energy_delegations" ("network", "status");`);
    this.addSql(`create index "energy_delegations_purpose_idx" on "energy_delegations" ("purpose", "purpose_id");`);
    this.addSql(`create index "energy_delegations_delegate_idx" on "energy_delegations" ("delegate_transfer_id");`);
    this.addSql(`create index "energy_delegations_reclaim_idx" on "energy_delegations" ("reclaim_transfer_id");`);
    // One open loan per sweep or payout: a second plan of the same transfer (two chain-workers) cannot lend twice.
    this.addSql(
      `create unique index "energy_delegations_one_open" on "energy_delegations" ("purpose", "purpose_id") where "status" in ('DELEGATING', 'DELEGATED', 'RECLAIMING');`,
    );
    // A transfer that burnt though the source is the stake, once per transfer (what `ops energy status` counts).
    this.addSql(
      `create table "energy_fallbacks" ("purpose" text not null, "purpose_id" uuid not null, "network" text not null, "reason" text not null, "at" timestamptz not null, constraint "energy_fallbacks_pkey" primary key ("purpose", "purpose_id"));`,
    );
    this.addSql(`create index "energy_fallbacks_network_at_idx" on "energy_fallbacks" ("network", "at");`);
    this.addSql(
      `create table "energy_policies" ("network" text not null, "source" text check ("source" in ('burn', 'stake')) not null, "margin_percent" int not null, "max_wait_seconds" int not null, "updated_at" timestamptz not null, constraint "energy_policies_pkey" primary key ("network"));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "energy_delegations" cascade;`);
    this.addSql(`drop table if exists "energy_policies" cascade;`);
    this.addSql(`drop table if exists "energy_fallbacks" cascade;`);
  }
}
