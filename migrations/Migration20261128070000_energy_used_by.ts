import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 34: the transfer that went on a loan's energy (a sweep, a withdrawal, a faucet drip), so that what lent
 * energy saved is counted from that transfer's receipt, and only for loans a transfer used.
 */
export class Migration20261128070000_energy_used_by extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "energy_delegations" add column "used_by" uuid null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "energy_delegations" drop column "used_by";`);
  }
}
