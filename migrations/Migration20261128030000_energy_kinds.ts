import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 34: TRON's Stake 2.0 transactions of the energy account go through the one outgoing-transfer pipeline,
 * each as its own kind (stake, delegate, take back, unstake, withdraw what was unstaked).
 */
export class Migration20261128030000_energy_kinds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "outgoing_transfers" drop constraint if exists "outgoing_transfers_kind_check";`);
    this.addSql(
      `alter table "outgoing_transfers" add constraint "outgoing_transfers_kind_check" check("kind" in ('GAS_TOPUP', 'SWEEP', 'WITHDRAWAL', 'FAUCET', 'COLD_FORWARD', 'UNEXPECTED_RETURN', 'ENERGY_STAKE', 'ENERGY_DELEGATE', 'ENERGY_RECLAIM', 'ENERGY_UNSTAKE', 'ENERGY_WITHDRAW'));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "outgoing_transfers" drop constraint if exists "outgoing_transfers_kind_check";`);
    this.addSql(
      `alter table "outgoing_transfers" add constraint "outgoing_transfers_kind_check" check("kind" in ('GAS_TOPUP', 'SWEEP', 'WITHDRAWAL', 'FAUCET', 'COLD_FORWARD', 'UNEXPECTED_RETURN'));`,
    );
  }
}
