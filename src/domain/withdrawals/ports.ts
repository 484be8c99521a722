// What the withdrawal use cases need from storage.
import type { Asset, Network } from '../money/networks.js';
import type { Page, PageRequest } from '../pagination.js';
import type { Withdrawal, WithdrawalStatus } from './withdrawal.js';

export interface WithdrawalFilter {
  status?: WithdrawalStatus;
  network?: Network;
}

export interface WithdrawalRepo {
  add(withdrawal: Withdrawal): Promise<void>;
  /** The workspace's withdrawal on one of `networks` (another workspace's or network's is null). */
  get(workspaceId: string, networks: readonly Network[], id: string): Promise<Withdrawal | null>;
  /** The workspace's withdrawals of `ids` on `networks`, in no particular order (one read for a page of them). */
  getMany(workspaceId: string, networks: readonly Network[], ids: readonly string[]): Promise<Withdrawal[]>;
  /** The withdrawal, locked until the transaction ends (waiting for another holder); null when there is none. */
  lock(id: string): Promise<Withdrawal | null>;
  /** Writes status, transfer, txid, failure and times. */
  save(withdrawal: Withdrawal): Promise<void>;
  /** The workspace's withdrawals on `networks`, newest request first. */
  list(workspaceId: string, networks: readonly Network[], filter: WithdrawalFilter, page: PageRequest): Promise<Page<Withdrawal>>;
  /** What the workspace's withdrawals on `networks` requested since `since` add up to per asset, cancelled and failed ones left out. */
  totalsSince(workspaceId: string, networks: readonly Network[], since: Date): Promise<{ asset: Asset; amount: bigint }[]>;
  /** Ids of the network's PENDING withdrawals not picked up yet, oldest first. */
  readyIds(network: Network, limit: number): Promise<string[]>;
  /** The net (API units) of the network's withdrawals of `asset` not sent yet (awaiting approval, pending, held): what the treasury must keep for them. */
  unsentNetTotal(network: Network, asset: Asset): Promise<bigint>;
  /**
   * Ids of the network's withdrawals on their way whose transfer has moved past what they show (broadcast
   * while the withdrawal is PENDING, in a block while it is PROCESSING, out of its block again while it is
   * CONFIRMING), oldest first. A transfer's end reaches its withdrawal through the pipeline's outcomes.
   */
  behindTheirTransferIds(network: Network, limit: number): Promise<string[]>;
  /** The withdrawal's status, read without a lock; null when there is none. */
  statusOf(id: string): Promise<WithdrawalStatus | null>;
  /** The withdrawal a transfer pays out, locked. */
  byTransfer(transferId: string): Promise<Withdrawal | null>;
}
