import { Migration } from '@mikro-orm/migrations';

/**
 * Lists are newest first over all of a side's networks (network IN (...)):
 * with only (workspace_id, network, created_at) PostgreSQL sorted every row of
 * the workspace for the first page (57 ms at 100,000 deposits, 0.1 ms with
 * these; `npm run bench -- scale`).
 */
export class Migration20261126144943_list_page_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "withdrawals_page_idx" on "withdrawals" ("workspace_id", "requested_at", "id");`);
    this.addSql(`create index "wallets_page_idx" on "wallets" ("workspace_id", "created_at", "id");`);
    this.addSql(`create index "deposits_page_idx" on "deposits" ("workspace_id", "created_at", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "deposits_page_idx";`);
    this.addSql(`drop index "wallets_page_idx";`);
    this.addSql(`drop index "withdrawals_page_idx";`);
  }
}
