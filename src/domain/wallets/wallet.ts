// A deposit wallet (docs/api.md#wallets): one HD address on one network for one
// asset, optionally attributed to a customer. ACTIVE from creation; ARCHIVED
// only leaves it out of lists: it stays monitored and credited.
import type { Asset, Network } from '../money/networks.js';

export type WalletStatus = 'ACTIVE' | 'SWEPT' | 'ARCHIVED';
export const WALLET_STATUSES: readonly WalletStatus[] = ['ACTIVE', 'SWEPT', 'ARCHIVED'];

export const WALLET_EXTERNAL_REF_MAX = 255;

export interface Wallet {
  id: string;
  workspaceId: string;
  network: Network;
  asset: Asset;
  address: string;
  /** BIP-44 account of the (workspace, network) and index of this address in it. */
  derivationAccount: number;
  derivationIndex: number;
  status: WalletStatus;
  customerId: string | null;
  /** Client reference, only ever stored encrypted (SecretCipher). */
  externalRefCiphertext: string | null;
  createdAt: Date;
}

export interface WalletFilter {
  status?: WalletStatus;
  network?: Network;
  asset?: Asset;
  customerId?: string;
}
