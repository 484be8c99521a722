// What the deposit use cases need from storage: deposits, the scanner's
// cursor and recent block hashes per network, the operator's screening list
// and the set of monitored addresses.
import type { BlockRef } from '../chains/chain-port.js';
import type { Asset, BaseChain, Network } from '../money/networks.js';
import type { Page, PageRequest } from '../pagination.js';
import type { Deposit, DepositStatus } from './deposit.js';
import type { UnexpectedDeposit, UnexpectedStatus } from './unexpected-deposit.js';

export interface DepositFilter {
  status?: DepositStatus;
  network?: Network;
  walletId?: string;
  customerId?: string;
}

export interface DepositRepo {
  /** Whether the workspace has a credited (CONFIRMED or SWEPT) token deposit on one of `networks`. */
  hasCreditedTokenDeposit(workspaceId: string, networks: readonly Network[]): Promise<boolean>;
  /**
   * Records newly seen deposits, one per identity (network, txid, log index):
   * returns the ones that were new. A FAILED deposit seen again (its transfer
   * re-included later) is reopened with its id and returned as well; a
   * CONFIRMED one marked reorged out moves to its new block, unmarked, and is
   * not returned.
   */
  record(deposits: Deposit[]): Promise<Deposit[]>;
  /**
   * Credited deposits a reorg took the block of and whose transfer the node did not return: marked,
   * not reversed. The rescan of their blocks records them again (record clears the mark, keeps them
   * CONFIRMED in their new block) or proves them gone (reorgedOutBy).
   */
  markReorgedOut(ids: readonly string[], at: Date): Promise<void>;
  /** Marked deposits the rescan read past their crediting depth without finding them, locked until commit. */
  reorgedOutBy(network: Network, tip: bigint): Promise<Deposit[]>;
  /** Deposits of the network in blocks above `block` with one of these statuses (after a reorg). */
  above(network: Network, block: bigint, statuses: readonly DepositStatus[]): Promise<Deposit[]>;
  /**
   * The scanner's step, in one statement: DETECTED deposits of the network
   * that get a second confirmation at `tip`, below their threshold, become
   * CONFIRMING with their confirmations (counted as confirmationsAt does).
   * CONFIRMING ones are not rewritten at every step: readers bring their
   * count up to the tip (shownConfirmations).
   */
  advanceConfirmations(network: Network, tip: bigint, at: Date): Promise<void>;
  /** DETECTED and CONFIRMING deposits of the network that reach their threshold at `tip`, oldest block first. */
  reachingThreshold(network: Network, tip: bigint): Promise<Deposit[]>;
  /** Writes a deposit's changed status, confirmations, block, fee and times. */
  update(deposit: Deposit): Promise<void>;
  /** update() of many deposits in one go (a scanner step's credits). */
  updateMany(deposits: readonly Deposit[]): Promise<void>;
  /** For update: the deposit by id whatever its workspace (operator commands), locked until commit. */
  lockById(id: string): Promise<Deposit | null>;
  /** The deposit with this identity, if any. */
  byIdentity(network: Network, txid: string, logIndex: number | null): Promise<Deposit | null>;
  get(workspaceId: string, networks: readonly Network[], id: string): Promise<Deposit | null>;
  /** The workspace's deposits of `ids` on `networks`, in no particular order (one read for a page of them). */
  getMany(workspaceId: string, networks: readonly Network[], ids: readonly string[]): Promise<Deposit[]>;
  list(workspaceId: string, networks: readonly Network[], filter: DepositFilter, page: PageRequest): Promise<Page<Deposit>>;
  /** How many deposits of the network are in each status (metrics). */
  countByStatus(): Promise<{ network: Network; status: DepositStatus; count: number }[]>;
}

/** Money that arrived where no wallet watches it (unexpected-deposit.ts), kept apart from deposits. */
export interface UnexpectedDepositRepo {
  /** Records arrivals not recorded yet (one per identity: network, txid, log index); how many were new. */
  record(arrivals: UnexpectedDeposit[]): Promise<number>;
  /** Of these identities, the ones the operator credited (as depositIdentity keys): the scanner treats them as deposits. */
  credited(network: Network, identities: readonly { txid: string; logIndex: number | null }[]): Promise<Set<string>>;
  /** The arrival, locked until commit. */
  lock(id: string): Promise<UnexpectedDeposit | null>;
  /** The arrival whose return is this transfer, locked until commit. */
  byReturnTransfer(transferId: string): Promise<UnexpectedDeposit | null>;
  update(arrival: UnexpectedDeposit): Promise<void>;
  /** Newest first. */
  list(filter: { status?: UnexpectedStatus; network?: Network }, limit: number): Promise<UnexpectedDeposit[]>;
  /**
   * After a reorg: arrivals in blocks above `block` that no transfer moves are forgotten (how many): LISTED
   * ones, and RETURNING ones with no return sweep open (SweepRepo.failUnsentReturnsAbove ends those that sent
   * nothing first). The rescan from there lists again those whose transfer is still on chain; one that is
   * gone leaves nothing to recover, and nothing is returned with another's money.
   */
  forgetAbove(network: Network, block: bigint): Promise<number>;
  /** RETURNING arrivals of the network with no return sweep open, oldest first, with their wallet's derivation (to sign from it). */
  returnsDue(network: Network, limit: number): Promise<{ arrival: UnexpectedDeposit; derivationAccount: number; derivationIndex: number }[]>;
  /** LISTED arrivals per network and asset, and their sum in base units (metrics). */
  listedTotals(): Promise<{ network: Network; asset: Asset; count: number; chainAmount: bigint }[]>;
}

/** The scanner's position per network, held by one chain-worker at a time. */
export interface ScanState {
  /** The next block to read; null before the first scan. */
  nextBlock: bigint | null;
  /** Hashes of the recent blocks read, by height. */
  recent: Map<bigint, string>;
}

export interface ScanStateRepo {
  /**
   * Takes or renews the scanner's lease on the network for `owner` (one
   * active scanner per network); null when another scanner holds it.
   */
  claim(network: Network, owner: string, leaseSeconds: number): Promise<ScanState | null>;
  /**
   * Moves the cursor from `expectedNext` to `next` and stores `blocks`,
   * keeping the `keep` most recent, and renews the lease for `leaseSeconds`
   * from now; false (nothing written) when the lease was lost or another
   * scanner moved the cursor meanwhile.
   */
  advance(network: Network, owner: string, expectedNext: bigint | null, next: bigint, blocks: BlockRef[], keep: number, leaseSeconds: number): Promise<boolean>;
  /** After a reorg: the cursor goes back to `next` and the stored blocks from there on are dropped. */
  rewind(network: Network, owner: string, next: bigint): Promise<boolean>;
  /** Lets the lease go (a clean shutdown), so another chain-worker takes over at once. */
  release(network: Network, owner: string): Promise<void>;
  /** The last block the scanner has read, per network it has scanned (the tip its confirmations count to). */
  tips(networks: readonly Network[]): Promise<Map<Network, bigint>>;
  /** Whether a chain-worker holds the network's lease now (it has a node for it and is scanning). */
  scanning(network: Network): Promise<boolean>;
}

/** The operator's deny list of sender addresses (screening). */
export interface ScreeningRepo {
  deny(chain: BaseChain, address: string, at: Date): Promise<boolean>;
  allow(chain: BaseChain, address: string): Promise<boolean>;
  /** Of these addresses (canonical form) of `chain`, those denied. */
  deniedAmong(chain: BaseChain, addresses: readonly string[]): Promise<Set<string>>;
}

/**
 * The monitored addresses of each network, in memory: `has` is what the
 * chain adapters call for every transfer they read, so it must be O(1) and
 * small; whose an address is comes from the database for the few that match
 * (WalletRepo.byAddresses). `refresh` adds the wallets created since the last
 * refresh (never missing one committed late: the adapter reads back with an
 * overlap).
 */
export interface MonitoredAddresses {
  refresh(network: Network): Promise<void>;
  has(network: Network, key: string): boolean;
  size(network: Network): number;
}
