import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 30: a credited deposit whose transfer a node did not return after a reorg is marked, not
 * reversed: the rescan of its blocks either finds it (the mark is cleared) or proves it gone.
 */
export class Migration20261127091500_deposit_reorged_out extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "deposits" add column "reorged_out_at" timestamptz null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "deposits" drop column "reorged_out_at";`);
  }
}
