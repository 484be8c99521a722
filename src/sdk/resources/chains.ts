// Types of GET /v2/chains (docs/api.md#chains): the chains enabled on the key's network.
import type { Asset, BaseChain, ResolvedChain } from '../types.js';

export interface ChainAsset {
  asset: Asset;
  /** Decimal places of amounts in this API. */
  decimals: number;
  /** Decimal places of the token on chain (differs from `decimals` for USDT_BSC). */
  chain_decimals: number;
  /** Null for the native asset. */
  contract_address: string | null;
}

export interface Chain {
  chain: ResolvedChain;
  base_chain: BaseChain;
  assets: ChainAsset[];
  required_confirmations: number;
  enabled: boolean;
}

export interface ChainList {
  data: Chain[];
}
