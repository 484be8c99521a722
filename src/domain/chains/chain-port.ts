// What the application needs from a chain, and nothing more (issue 14 builds
// the EVM adapter on viem and the TRON adapter on tronweb behind it). Blocks
// carry their parent hash so the scanner can tell a reorg from the chain
// growing; transfers are read by block range for a set of monitored
// addresses, which the adapter matches in memory (never as a topic filter).
import type { Asset, BaseChain, Network } from '../money/networks.js';

export interface BlockRef {
  number: bigint;
  hash: string;
  parentHash: string;
}

/**
 * The key under which an address is monitored: lowercase hex for ETH and BSC
 * (cheap to take from a log topic, no checksum), the base58 form for TRON.
 * The scanner's monitored set and the adapters' `isMonitored` calls use it.
 */
export const monitoredKey = (chain: BaseChain, address: string): string => (chain === 'TRON' ? address : address.toLowerCase());

/** A transfer of a token or the native asset to a monitored address, as found in a block. */
export interface ObservedTransfer {
  network: Network;
  asset: Asset;
  txid: string;
  /** Position of the log (in its block on EVM, in its transaction on TRON); null for a native transfer (one per transaction). */
  logIndex: number | null;
  block: BlockRef;
  /** Canonical addresses (EIP-55 hex, TRON base58). */
  from: string;
  to: string;
  /** Base units of the asset on chain (18 decimals for USDT_BSC). */
  amount: bigint;
}

export interface TransactionReceipt {
  txid: string;
  status: 'success' | 'reverted';
  block: BlockRef;
}

/** Called with `monitoredKey(chain, address)` of every recipient the adapter reads. */
export type IsMonitored = (key: string) => boolean;

/**
 * Reads a chain. Adapters retry transient node failures (429, 5xx, time-outs)
 * with backoff and across their configured URLs; what they still throw is a
 * ChainUnavailableError, after which the caller keeps its cursor and tries
 * again later. Only successful transfers are reported.
 */
export interface ChainPort {
  readonly network: Network;
  /** The latest block the node serves. */
  head(): Promise<BlockRef>;
  blockByNumber(number: bigint): Promise<BlockRef | null>;
  /** Null when the node no longer has the block (it was reorged out). */
  blockByHash(hash: string): Promise<BlockRef | null>;
  /** The headers of [from, to], in order; throws when the node does not have one of them. */
  blocks(from: bigint, to: bigint): Promise<BlockRef[]>;
  /**
   * Transfers of the configured tokens and the native asset to monitored addresses in [from, to], ordered by block.
   * `assets`, when given, are the only assets any monitored wallet holds: the adapter may skip reading what no
   * wallet can receive (block bodies when no wallet is of the native asset).
   * `expected`, when given, are the blocks the caller read for [from, to]: a
   * block the adapter reads with another hash (a backend on a sibling of the
   * head, a reorg between the two reads) is a ChainMovedError, never an
   * answer about other blocks than the caller's.
   */
  transfers(from: bigint, to: bigint, isMonitored: IsMonitored, assets?: ReadonlySet<Asset>, expected?: readonly BlockRef[]): Promise<ObservedTransfer[]>;
  /** The transfers of one included, successful transaction to monitored addresses (an operator's rescan); [] when it is not in a block. */
  transfersOf(txid: string, isMonitored: IsMonitored): Promise<ObservedTransfer[]>;
  /** The receipt of an included transaction, null when it is not (or no longer) in a block. */
  receipt(txid: string): Promise<TransactionReceipt | null>;
  /**
   * Of these transactions' transfers to monitored addresses, those the URLs agree on, as `agreedKey`s: at
   * least two URLs (one when only one is configured) show the same transfer in one same block, and no URL
   * shows the transaction's receipt without it. What crediting a deposit rests on: one URL can make up a
   * log. Absent where the adapter has nothing to compare. `blockOf`: the block (number and hash) each
   * transaction was read in, where the caller knows it (an adapter may read those blocks' receipts at once).
   */
  agreedTransfers?(txids: readonly string[], isMonitored: IsMonitored, blockOf?: ReadonlyMap<string, { number: bigint; hash: string }>): Promise<Set<string>>;
  /**
   * Whether any URL has the transaction mined and successful; a URL that cannot answer makes it a
   * ChainUnavailableError (no proof). What reversing a credit rests on: one URL's fork must not take it away.
   */
  minedOnAnyNode?(txid: string): Promise<boolean>;
}

/**
 * What the URLs agree on: `shown` holds, per URL that has the transaction, the agreedKeys it shows. A key is
 * agreed when at least `need` URLs show the transaction and every one of them shows that key.
 */
export function agreedAmong(shown: readonly (readonly string[])[], need: number): string[] {
  if (shown.length === 0 || shown.length < need) return [];
  const counts = new Map<string, number>();
  for (const keys of shown) for (const k of new Set(keys)) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].filter(([, n]) => n === shown.length).map(([k]) => k);
}

/**
 * A transfer as the URLs must agree on it (agreedTransfers): its identity, its block, its asset (the token
 * contract), its sender (screening reads it), its recipient and its amount in chain units.
 */
export const agreedKey = (t: { txid: string; logIndex: number | null; blockHash: string; asset: string; from: string; to: string; amount: bigint }): string =>
  [t.txid, t.logIndex ?? 'native', t.blockHash, t.asset, t.from, t.to, t.amount].map((v) => String(v).toLowerCase()).join(':');

/** The node could not be reached or kept failing after retries (kind: for the node-errors metric). */
export class ChainUnavailableError extends Error {
  constructor(
    readonly network: Network,
    /**
     * node_behind: the node has not imported what was asked (a lagging backend of a pool); an
     * answer that cannot be proved is this, never "nothing there". method_not_served: no URL
     * of the network serves the method (BSC's public endpoints and eth_getLogs).
     */
    readonly kind: 'timeout' | 'rate_limited' | 'server_error' | 'unreachable' | 'bad_response' | 'node_behind' | 'method_not_served',
    message: string,
  ) {
    super(message);
    this.name = 'ChainUnavailableError';
  }
}

/**
 * Two reads of the chain disagree (a block changed between them, a log or a
 * receipt in another block than the one read): an ordinary race at the tip,
 * not a failure. The caller reads again at once, without a backoff.
 */
export class ChainMovedError extends Error {
  constructor(message: string) {
    super(`chain moved: ${message}`);
    this.name = 'ChainMovedError';
  }
}

/** Throws ChainMovedError when `read` are not the `expected` blocks (same numbers and hashes). */
export function assertSameBlocks(read: readonly BlockRef[], expected: readonly BlockRef[] | undefined): void {
  if (!expected) return;
  const want = new Map(expected.map((b) => [b.number, b.hash]));
  for (const b of read) {
    const hash = want.get(b.number);
    if (hash !== undefined && hash !== b.hash) throw new ChainMovedError(`block ${b.number} is ${b.hash} now, ${hash} when first read`);
  }
}

/**
 * The node itself failing (unreachable, slow, overloaded): every item of a
 * step would fail alike, so the step stops and backs off. Anything else,
 * a bad answer included, belongs to the one item that met it.
 */
export const isNodeDown = (err: unknown): boolean => err instanceof ChainUnavailableError && err.kind !== 'bad_response';

/** What one item of a sending step met, for the log; the item is tried again next step while the others go on. */
export interface ItemError {
  kind: 'sweep' | 'withdrawal' | 'transfer' | 'drip' | 'cold-forward';
  id: string;
  message: string;
}

/**
 * One item of a sending step: the node itself failing propagates (the step
 * stops and backs off); any other error is recorded in `errors` with the
 * item's id, and the step goes on with the next item (undefined here).
 */
export async function aloneOnError<T>(kind: ItemError['kind'], id: string, errors: ItemError[], work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (err) {
    if (isNodeDown(err)) throw err;
    errors.push({ kind, id, message: err instanceof Error ? err.message : String(err) });
    return undefined;
  }
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
