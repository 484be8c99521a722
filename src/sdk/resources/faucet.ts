// Types of the sandbox faucet (docs/api.md#sandbox-faucet).
import type { Asset, BaseChain, ResolvedChain } from '../types.js';

/** QUEUED, SENDING (an item broadcast), COMPLETED (every item confirmed on chain) or FAILED. */
export type DripStatus = 'QUEUED' | 'SENDING' | 'COMPLETED' | 'FAILED';
/** QUEUED, SENT (broadcast), CONFIRMED or FAILED. */
export type DripItemStatus = 'QUEUED' | 'SENT' | 'CONFIRMED' | 'FAILED';

export interface Drip {
  drip_id: string;
  status: DripStatus;
  chain: ResolvedChain;
  address: string;
  items: { asset: Asset; amount: string; status: DripItemStatus }[];
}

/**
 * Test keys only. `address` is a sandbox wallet of the workspace on `chain`,
 * and every item is that wallet's own asset (a wallet watches its own asset
 * only). Native assets (ETH, BNB) only after a confirmed sandbox token deposit.
 */
export interface RequestDripParams {
  chain: BaseChain;
  address: string;
  /** At least one; each asset once. An item without `amount` gets the asset's default. */
  assets: { symbol: Asset; amount?: string }[];
}
