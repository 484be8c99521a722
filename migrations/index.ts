// The ordered list of migrations, by name: each is the class of that name in
// ./<name>.ts. They load only where migrations run (migratorOf in
// src/adapters/persistence/orm.ts), with the migrator's own libraries: a
// process that only checks that its database is up to date never loads them.
// New ones are made with `npm run migration:create -- --name NAME`; add the
// name it prints at the end of this list.
import type { MigrationObject } from '@mikro-orm/core';

export const MIGRATION_NAMES: readonly string[] = [
  'Migration20261123111622_workspaces_and_keys',
  'Migration20261123112430_idempotency_keys',
  'Migration20261123112637_rate_buckets',
  'Migration20261123113749_customers_and_wallets',
  'Migration20261123115402_ledger_and_fees',
  'Migration20261123130231_verbatim_json',
  'Migration20261123140000_forget_api_key_replays',
  'Migration20261123195949_webhook_endpoints',
  'Migration20261123205841_webhook_dispatch',
  'Migration20261123235120_deposits',
  'Migration20261125145500_account_keys',
  'Migration20261125145811_transfers_and_sweeps',
  'Migration20261125191112_withdrawals',
  'Migration20261126092323_faucet',
  'Migration20261126110304_commitments',
  'Migration20261126144943_list_page_indexes',
  'Migration20261127063125_chain_reconciliation',
  'Migration20261127091500_deposit_reorged_out',
  'Migration20261127093000_reconciliation_acks',
  'Migration20261127130000_treasury_policies',
  'Migration20261127140000_cold_forward',
  'Migration20261127150000_refill_cursors',
  'Migration20261127160000_unexpected_deposits',
  'Migration20261127180000_members',
  'Migration20261127200000_dashboard_sign_in',
  'Migration20261128030000_energy_kinds',
  'Migration20261128033724_energy',
  'Migration20261128070000_energy_used_by',
  'Migration20261128090000_list_counts',
  'Migration20261128100000_address_pool',
  'Migration20261128190000_idempotency_claim',
  'Migration20261128230000_ledger_post',
];

/** Each migration with its class, in order, for MikroORM's migrator (migrationsList). */
export async function loadMigrations(): Promise<MigrationObject[]> {
  return Promise.all(
    MIGRATION_NAMES.map(async (name) => {
      const module = (await import(/* @vite-ignore */ `./${name}.js`)) as Record<string, MigrationObject['class'] | undefined>;
      const found = module[name];
      if (!found) throw new Error(`migrations/${name}.ts does not export a class named ${name}`);
      return { name, class: found };
    }),
  );
}
