// What the application needs from a chain, and nothing more (issue 14 builds
// the EVM adapter on viem and the TRON adapter on tronweb behind it). Blocks
// carry their parent hash so the scanner can tell a reorg from the chain
// growing; transfers are read by block range for a set of monitored
// addresses, which the adapter matches in memory (never as a topic filter).
import type { Asset, Network } from '../money/networks.js';

export interface BlockRef {
  number: bigint;
  hash: string;
  parentHash: string;
}

/** A transfer of a token or the native asset to a monitored address, as found in a block. */
export interface ObservedTransfer {
  network: Network;
  asset: Asset;
  txid: string;
  /** Position of the log in its block; null for a native transfer (one per transaction). */
  logIndex: number | null;
  block: BlockRef;
  from: string;
  to: string;
  /** Base units of the asset on chain. */
  amount: bigint;
}

export interface ChainPort {
  readonly network: Network;
  /** The latest block the node serves. */
  head(): Promise<BlockRef>;
  blockByNumber(number: bigint): Promise<BlockRef | null>;
  /** Null when the node no longer has the block (it was reorged out). */
  blockByHash(hash: string): Promise<BlockRef | null>;
  /** Transfers of the configured tokens and the native asset to `isMonitored` addresses in [from, to]. */
  transfers(from: bigint, to: bigint, isMonitored: (address: string) => boolean): Promise<ObservedTransfer[]>;
  /** The transfers of one transaction to monitored addresses (an operator's rescan). */
  transfersOf(txid: string, isMonitored: (address: string) => boolean): Promise<ObservedTransfer[]>;
}

/**
 * How a newly read block relates to the blocks the scanner stored: it
 * extends them, or its parent is not the stored block below it (a reorg,
 * walked back from there to the common ancestor).
 */
export function relation(stored: ReadonlyMap<bigint, string>, incoming: BlockRef): 'extends' | 'reorg' | 'unknown' {
  const below = stored.get(incoming.number - 1n);
  if (below === undefined) return 'unknown';
  return below === incoming.parentHash ? 'extends' : 'reorg';
}

/**
 * The highest stored block that the node still has at the same height, given
 * the node's hash at each height (walking down from the tip): the common
 * ancestor of a reorg, or null when none of the stored blocks survived.
 */
export function commonAncestor(stored: ReadonlyMap<bigint, string>, nodeHashAt: ReadonlyMap<bigint, string>): bigint | null {
  const heights = [...stored.keys()].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  for (const h of heights) if (nodeHashAt.get(h) === stored.get(h)) return h;
  return null;
}
