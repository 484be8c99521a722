import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 31: the treasury's surplus forwarded to cold storage — a transfer kind (COLD_FORWARD) and two
 * service ledger accounts (COLD, COLD_IN_TRANSIT).
 */
export class Migration20261127140000_cold_forward extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "outgoing_transfers" drop constraint if exists "outgoing_transfers_kind_check";`);
    this.addSql(`alter table "outgoing_transfers" add constraint "outgoing_transfers_kind_check" check("kind" in ('GAS_TOPUP', 'SWEEP', 'WITHDRAWAL', 'FAUCET', 'COLD_FORWARD'));`);
    this.addSql(`alter table "ledger_accounts" drop constraint if exists "ledger_accounts_kind_check";`);
    this.addSql(
      `alter table "ledger_accounts" add constraint "ledger_accounts_kind_check" check("kind" in ('AVAILABLE', 'LOCKED', 'REVENUE', 'GAS', 'TREASURY', 'FAUCET', 'EXTERNAL', 'RECEIVABLE', 'COLD', 'COLD_IN_TRANSIT'));`,
    );
    // At most one forward of a network's asset on its way: a forward is requested again only once the last one ended.
    this.addSql(
      `create unique index "outgoing_transfers_one_cold_forward" on "outgoing_transfers" ("network", "asset") where "kind" = 'COLD_FORWARD' and "status" not in ('CONFIRMED', 'FAILED');`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "outgoing_transfers_one_cold_forward";`);
    this.addSql(`alter table "ledger_accounts" drop constraint if exists "ledger_accounts_kind_check";`);
    this.addSql(`alter table "ledger_accounts" add constraint "ledger_accounts_kind_check" check("kind" in ('AVAILABLE', 'LOCKED', 'REVENUE', 'GAS', 'TREASURY', 'FAUCET', 'EXTERNAL', 'RECEIVABLE'));`);
    this.addSql(`alter table "outgoing_transfers" drop constraint if exists "outgoing_transfers_kind_check";`);
    this.addSql(`alter table "outgoing_transfers" add constraint "outgoing_transfers_kind_check" check("kind" in ('GAS_TOPUP', 'SWEEP', 'WITHDRAWAL', 'FAUCET'));`);
  }
}
