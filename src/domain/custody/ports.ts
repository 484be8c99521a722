// What the custody use cases need from storage (issue 31): the operator's
// treasury policies and their history.
import type { Asset, Network } from '../money/networks.js';
import type { TreasuryPolicy } from './treasury-policy.js';

/** One change of a treasury policy, kept for good (who asked is the operator's shell: the CLI). */
export interface TreasuryPolicyEvent {
  network: Network;
  asset: Asset;
  kind: 'LIMITS_SET' | 'COLD_ADDRESS_REQUESTED' | 'COLD_ADDRESS_CANCELLED' | 'COLD_ADDRESS_IN_FORCE';
  detail: Record<string, string | number | null>;
  at: Date;
}

export interface TreasuryRepo {
  /** Every policy, as stored (a pending change may be due: see inForce). */
  policies(): Promise<TreasuryPolicy[]>;
  /** One policy, its row locked until the transaction ends. */
  policyForUpdate(network: Network, asset: Asset): Promise<TreasuryPolicy | null>;
  savePolicy(policy: TreasuryPolicy): Promise<void>;
  record(event: TreasuryPolicyEvent): Promise<void>;
  history(network: Network, asset: Asset, limit: number): Promise<TreasuryPolicyEvent[]>;
  /** The next block to read for refills on the network, its row locked; null before the first read. */
  refillCursorForUpdate(network: Network): Promise<bigint | null>;
  setRefillCursor(network: Network, next: bigint, at: Date): Promise<void>;
}
