// Types of GET /v2/balances (docs/api.md#balances): the workspace's balances on the key's network.
import type { Asset, BaseChain, DecimalString, ResolvedChain } from '../types.js';

/** One asset on one chain; amounts are decimal strings at the asset's places (docs/api.md#amounts), never negative. */
export interface Balance {
  chain: ResolvedChain;
  asset: Asset;
  /** What can be withdrawn now. */
  available: DecimalString;
  /** Set aside by withdrawals requested and not yet final. */
  locked: DecimalString;
  /** available + locked, summed by the service. */
  total: DecimalString;
}

/** One row per asset the workspace ever held, on the key's network. */
export interface BalanceList {
  data: Balance[];
}

export interface GetBalancesParams {
  /** A base chain (ETH, on the key's network) or a resolved one (ETH_TESTNET). */
  chain?: BaseChain | ResolvedChain;
  asset?: Asset;
}
