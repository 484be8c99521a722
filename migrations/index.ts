// The ordered list of migrations. MikroORM's migrator runs them; new ones are
// made with `npm run migration:create -- --name NAME` and added here.
import { Migration20261123111622_workspaces_and_keys } from './Migration20261123111622_workspaces_and_keys.js';
import { Migration20261123112430_idempotency_keys } from './Migration20261123112430_idempotency_keys.js';
import { Migration20261123112637_rate_buckets } from './Migration20261123112637_rate_buckets.js';
import { Migration20261123113749_customers_and_wallets } from './Migration20261123113749_customers_and_wallets.js';
import { Migration20261123115402_ledger_and_fees } from './Migration20261123115402_ledger_and_fees.js';
import { Migration20261123130231_verbatim_json } from './Migration20261123130231_verbatim_json.js';
import { Migration20261123140000_forget_api_key_replays } from './Migration20261123140000_forget_api_key_replays.js';
import { Migration20261123195949_webhook_endpoints } from './Migration20261123195949_webhook_endpoints.js';
import { Migration20261123205841_webhook_dispatch } from './Migration20261123205841_webhook_dispatch.js';
import { Migration20261123235120_deposits } from './Migration20261123235120_deposits.js';
import { Migration20261125145500_account_keys } from './Migration20261125145500_account_keys.js';
import { Migration20261125145811_transfers_and_sweeps } from './Migration20261125145811_transfers_and_sweeps.js';
import { Migration20261125191112_withdrawals } from './Migration20261125191112_withdrawals.js';
import { Migration20261126092323_faucet } from './Migration20261126092323_faucet.js';
import { Migration20261126110304_commitments } from './Migration20261126110304_commitments.js';
import { Migration20261126144943_list_page_indexes } from './Migration20261126144943_list_page_indexes.js';
import { Migration20261127063125_chain_reconciliation } from './Migration20261127063125_chain_reconciliation.js';
import { Migration20261127091500_deposit_reorged_out } from './Migration20261127091500_deposit_reorged_out.js';
import { Migration20261127093000_reconciliation_acks } from './Migration20261127093000_reconciliation_acks.js';
import { Migration20261127130000_treasury_policies } from './Migration20261127130000_treasury_policies.js';
import { Migration20261127140000_cold_forward } from './Migration20261127140000_cold_forward.js';
import { Migration20261127180000_members } from './Migration20261127180000_members.js';
import { Migration20261127200000_dashboard_sign_in } from './Migration20261127200000_dashboard_sign_in.js';
import { Migration20261128030000_energy_kinds } from './Migration20261128030000_energy_kinds.js';
import { Migration20261127160000_unexpected_deposits } from './Migration20261127160000_unexpected_deposits.js';
import { Migration20261127150000_refill_cursors } from './Migration20261127150000_refill_cursors.js';

export const MIGRATIONS = [
  { name: 'Migration20261123111622_workspaces_and_keys', class: Migration20261123111622_workspaces_and_keys },
  { name: 'Migration20261123112430_idempotency_keys', class: Migration20261123112430_idempotency_keys },
  { name: 'Migration20261123112637_rate_buckets', class: Migration20261123112637_rate_buckets },
  { name: 'Migration20261123113749_customers_and_wallets', class: Migration20261123113749_customers_and_wallets },
  { name: 'Migration20261123115402_ledger_and_fees', class: Migration20261123115402_ledger_and_fees },
  { name: 'Migration20261123130231_verbatim_json', class: Migration20261123130231_verbatim_json },
  { name: 'Migration20261123140000_forget_api_key_replays', class: Migration20261123140000_forget_api_key_replays },
  { name: 'Migration20261123195949_webhook_endpoints', class: Migration20261123195949_webhook_endpoints },
  { name: 'Migration20261123205841_webhook_dispatch', class: Migration20261123205841_webhook_dispatch },
  { name: 'Migration20261123235120_deposits', class: Migration20261123235120_deposits },
  { name: 'Migration20261125145500_account_keys', class: Migration20261125145500_account_keys },
  { name: 'Migration20261125145811_transfers_and_sweeps', class: Migration20261125145811_transfers_and_sweeps },
  { name: 'Migration20261125191112_withdrawals', class: Migration20261125191112_withdrawals },
  { name: 'Migration20261126092323_faucet', class: Migration20261126092323_faucet },
  { name: 'Migration20261126110304_commitments', class: Migration20261126110304_commitments },
  { name: 'Migration20261126144943_list_page_indexes', class: Migration20261126144943_list_page_indexes },
  { name: 'Migration20261127063125_chain_reconciliation', class: Migration20261127063125_chain_reconciliation },
  { name: 'Migration20261127091500_deposit_reorged_out', class: Migration20261127091500_deposit_reorged_out },
  { name: 'Migration20261127093000_reconciliation_acks', class: Migration20261127093000_reconciliation_acks },
  { name: 'Migration20261127130000_treasury_policies', class: Migration20261127130000_treasury_policies },
  { name: 'Migration20261127140000_cold_forward', class: Migration20261127140000_cold_forward },
  { name: 'Migration20261127150000_refill_cursors', class: Migration20261127150000_refill_cursors },
  { name: 'Migration20261127160000_unexpected_deposits', class: Migration20261127160000_unexpected_deposits },
  { name: 'Migration20261127180000_members', class: Migration20261127180000_members },
  { name: 'Migration20261127200000_dashboard_sign_in', class: Migration20261127200000_dashboard_sign_in },
  { name: 'Migration20261128030000_energy_kinds', class: Migration20261128030000_energy_kinds },
];
