// What the faucet's use cases need from storage (docs/adr/0029-sandbox-faucet.md).
import type { Asset, Network } from '../money/networks.js';
import type { Drip, DripStatus, FaucetAssetLimit, FaucetLimits } from './faucet.js';

export interface FaucetRepo {
  /** Serialises the workspace's drip requests until the transaction ends (the limits are read and the drip written under it). */
  lockWorkspace(workspaceId: string): Promise<void>;
  /** Serialises the native drips of a network's dispenser, across workspaces, until the transaction ends. */
  lockDispenser(network: Network): Promise<void>;
  add(drip: Drip): Promise<void>;
  /** The workspace's drip on one of `networks` (another workspace's or network's is null). */
  get(workspaceId: string, networks: readonly Network[], id: string): Promise<Drip | null>;
  /** The drip, locked until the transaction ends; null when there is none. */
  lock(id: string): Promise<Drip | null>;
  /** Writes the drip's status and its items' statuses and transfers. */
  save(drip: Drip): Promise<void>;
  /** How many drips the workspace asked for since `since`. */
  countSince(workspaceId: string, since: Date): Promise<number>;
  /** What the workspace was given of each asset since `since`, by drips not failed (API precision). */
  givenSince(workspaceId: string, since: Date): Promise<Map<Asset, bigint>>;
  /** What the network's items of `asset` not handed to the pipeline yet will take (API precision). */
  queuedAmount(network: Network, asset: Asset): Promise<bigint>;
  /** Ids of the network's drips with an item not broadcast yet (not handed to the pipeline, or on its way), oldest first. */
  queuedIds(network: Network, limit: number): Promise<string[]>;
  /** The drip's status, read without a lock; null when there is none. */
  statusOf(id: string): Promise<DripStatus | null>;
  /** The drip an item's transfer belongs to, locked. */
  byTransfer(transferId: string): Promise<Drip | null>;
  /** The defaults with the operator's changes. */
  limits(): Promise<FaucetLimits>;
  /** The operator's limits of one asset (replacing the default). */
  setAssetLimit(asset: Asset, limit: FaucetAssetLimit, at: Date): Promise<void>;
  /** The operator's faucet-wide limits. */
  setSettings(settings: Pick<FaucetLimits, 'maxItems' | 'dripsPerHour'>, at: Date): Promise<void>;
  /** The assets whose limits the operator set. */
  configuredAssets(): Promise<Asset[]>;
}
