import { Migration } from '@mikro-orm/migrations';

/** A counted list: its table, the owner column and the group columns `total` filters on (ADR 0036). */
interface Counted {
  list: string;
  owner: string;
  network: string;
  status: string;
  asset: string;
}

const COUNTED: readonly Counted[] = [
  { list: 'deposits', owner: 'workspace_id', network: 'network', status: 'status', asset: `''` },
  { list: 'withdrawals', owner: 'workspace_id', network: 'network', status: 'status', asset: `''` },
  { list: 'wallets', owner: 'workspace_id', network: 'network', status: 'status', asset: 'asset' },
  { list: 'customers', owner: 'workspace_id', network: 'side::text', status: 'status', asset: `''` },
  { list: 'webhook_deliveries', owner: 'endpoint_id', network: `''`, status: 'status', asset: `''` },
];

const groups = (c: Counted, rows: string, sign: number): string =>
  `select ${c.owner} as owner, ${c.network} as network, ${c.status} as status, ${c.asset} as asset, ${sign}::bigint as n from ${rows}`;

/** The trigger function of one list: one signed delta per group a statement changed, none where they cancel. */
function counter(c: Counted): string {
  const fold = (inner: string) =>
    `insert into list_counts (list, owner, network, status, asset, n)
       select '${c.list}', owner, network, status, asset, sum(n) from (${inner}) d group by owner, network, status, asset having sum(n) <> 0;`;
  return `create function list_counts_${c.list}() returns trigger language plpgsql as $$
begin
  if tg_op = 'TRUNCATE' then
    -- Undone by appending each group's negated sum (one statement, one snapshot): deleting the rows instead could
    -- miss a fold's sum row committed meanwhile. An older snapshot could miss a delta committed since it was taken.
    if current_setting('transaction_isolation') <> 'read committed' then
      raise exception 'truncate ${c.list} only under READ COMMITTED: its counters (list_counts) are undone from the latest rows';
    end if;
    insert into list_counts (list, owner, network, status, asset, n)
      select list, owner, network, status, asset, -sum(n) from list_counts where list = '${c.list}'
       group by list, owner, network, status, asset having sum(n) <> 0;
  elsif tg_op = 'INSERT' then
    ${fold(groups(c, 'new_rows', 1))}
  elsif tg_op = 'DELETE' then
    ${fold(groups(c, 'old_rows', -1))}
  else
    ${fold(`${groups(c, 'new_rows', 1)} union all ${groups(c, 'old_rows', -1)}`)}
  end if;
  return null;
end $$;`;
}

/**
 * Issue 35: the lists' `total` without counting the workspace's rows on every request. Statement-level triggers
 * with transition tables append deltas to list_counts (set-based: one row per group a statement changed, so a bulk
 * insert of thousands of deposits adds one row, an update that moves no row between groups none, and no request
 * waits on a shared counter row; PostgreSQL allows no column list on a trigger with transition tables); the dispatcher folds
 * them every minute. The counts start from the rows already there, under a lock that keeps writers out meanwhile.
 * Also the indexes each list's pages read in order: a status on one network, a wallet's, a customer's.
 */
export class Migration20261128090000_list_counts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "list_counts" ("id" bigserial primary key, "list" text not null, "owner" uuid not null, "network" text not null default '', "status" text not null default '', "asset" text not null default '', "n" bigint not null);`);
    this.addSql(`create index "list_counts_owner_idx" on "list_counts" ("list", "owner");`);
    for (const c of COUNTED) {
      this.addSql(`lock table "${c.list}" in share row exclusive mode;`);
      this.addSql(counter(c));
      this.addSql(`create trigger list_counts_ins after insert on "${c.list}" referencing new table as new_rows for each statement execute function list_counts_${c.list}();`);
      this.addSql(`create trigger list_counts_upd after update on "${c.list}" referencing old table as old_rows new table as new_rows for each statement execute function list_counts_${c.list}();`);
      this.addSql(`create trigger list_counts_del after delete on "${c.list}" referencing old table as old_rows for each statement execute function list_counts_${c.list}();`);
      this.addSql(`create trigger list_counts_trunc after truncate on "${c.list}" for each statement execute function list_counts_${c.list}();`);
      this.addSql(
        `insert into list_counts (list, owner, network, status, asset, n)
           select '${c.list}', owner, network, status, asset, count(*) from (${groups(c, `"${c.list}"`, 1)}) d group by owner, network, status, asset;`,
      );
    }

    this.addSql(`create index "withdrawals_status_page_idx" on "withdrawals" ("workspace_id", "network", "status", "requested_at");`);
    this.addSql(`drop index "webhook_deliveries_status_idx";`);
    this.addSql(`create index "webhook_deliveries_status_idx" on "webhook_deliveries" ("endpoint_id", "status", "created_at");`);
    this.addSql(`drop index "wallets_customer_idx";`);
    this.addSql(`create index "wallets_status_page_idx" on "wallets" ("workspace_id", "network", "status", "created_at");`);
    this.addSql(`create index "wallets_customer_idx" on "wallets" ("customer_id", "created_at");`);
    this.addSql(`drop index "deposits_wallet_idx";`);
    this.addSql(`create index "deposits_status_page_idx" on "deposits" ("workspace_id", "network", "status", "created_at");`);
    this.addSql(`create index "deposits_customer_idx" on "deposits" ("customer_id", "created_at");`);
    this.addSql(`create index "deposits_wallet_idx" on "deposits" ("wallet_id", "created_at");`);
  }

  override async down(): Promise<void> {
    for (const c of COUNTED) {
      for (const t of ['ins', 'upd', 'del', 'trunc']) this.addSql(`drop trigger list_counts_${t} on "${c.list}";`);
      this.addSql(`drop function list_counts_${c.list}();`);
    }
    this.addSql(`drop table if exists "list_counts" cascade;`);
    this.addSql(`drop index "deposits_status_page_idx";`);
    this.addSql(`drop index "deposits_customer_idx";`);
    this.addSql(`drop index "deposits_wallet_idx";`);
    this.addSql(`create index "deposits_wallet_idx" on "deposits" ("wallet_id");`);
    this.addSql(`drop index "wallets_status_page_idx";`);
    this.addSql(`drop index "wallets_customer_idx";`);
    this.addSql(`create index "wallets_customer_idx" on "wallets" ("customer_id");`);
    this.addSql(`drop index "webhook_deliveries_status_idx";`);
    this.addSql(`create index "webhook_deliveries_status_idx" on "webhook_deliveries" ("endpoint_id", "status");`);
    this.addSql(`drop index "withdrawals_status_page_idx";`);
  }
}
