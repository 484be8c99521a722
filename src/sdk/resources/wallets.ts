// Types of the deposit wallet endpoints (docs/api.md#wallets).
import type { Asset, BaseChain, DateTimeString, PageParams, ResolvedChain } from '../types.js';

/** ACTIVE from creation; SWEPT while everything deposited has been swept (back to ACTIVE on the next deposit); ARCHIVED by archiveWallet. */
export type WalletStatus = 'ACTIVE' | 'SWEPT' | 'ARCHIVED';

export interface Wallet {
  id: string;
  chain: ResolvedChain;
  asset: Asset;
  /** TRON: base58; BSC and ETH: checksummed hex. */
  address: string;
  status: WalletStatus;
  /** The customer the address is attributed to; null when it belongs to the workspace itself. */
  customer_id: string | null;
  created_at: DateTimeString;
  /**
   * The client reference given at creation (stored encrypted). Present only in
   * the answer of getWallet (GET /v2/wallets/{id}), null when none was given;
   * absent from createWallet, listWallets and archiveWallet.
   */
  external_ref?: string | null;
}

/**
 * The address is derived on the key's network for `chain`; the pair must be
 * compatible (TRON: USDT_TRON; BSC: USDT_BSC, BNB; ETH: USDT_ETH, USDC_ETH, EURC_ETH, ETH).
 */
export interface CreateWalletParams {
  chain: BaseChain;
  asset: Asset;
  external_ref?: string;
  /** An ACTIVE customer of the same workspace and network, else 400. */
  customer_id?: string;
}

/** ARCHIVED wallets are left out unless `status: 'ARCHIVED'` is asked for. */
export interface ListWalletsParams extends PageParams {
  status?: WalletStatus;
  /** A base chain (ETH, on the key's network) or a resolved one (ETH_TESTNET). */
  chain?: BaseChain | ResolvedChain;
  asset?: Asset;
  customer_id?: string;
}
