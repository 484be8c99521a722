// Every resource of /v2, in the order of the API's documentation. The api
// mounts these and the OpenAPI document describes these: one list.
import { apiKeysResource } from './api-keys.js';
import { balancesResource } from './balances.js';
import { chainsResource } from './chains.js';
import { commitmentResource } from './commitment.js';
import { customersResource } from './customers.js';
import { transactionsResource } from './deposits.js';
import { faucetResource } from './faucet.js';
import { feesResource } from './fees.js';
import type { Resource } from './route.js';
import { walletsResource } from './wallets.js';
import { webhooksResource } from './webhooks.js';
import { withdrawalsResource } from './withdrawals.js';

// Each resource has its own deps type; the list only needs what they share.
export const RESOURCES: readonly Resource<any>[] = [
  chainsResource,
  apiKeysResource,
  customersResource,
  walletsResource,
  withdrawalsResource,
  transactionsResource,
  balancesResource,
  feesResource,
  commitmentResource,
  webhooksResource,
  faucetResource,
];
