// The reading side of the EVM adapter (ChainPort; docs/operations.md#deposits,
// issue 30): blocks, token and native deposits, receipts.
// - Token deposits: `Transfer` logs of the configured token contracts, read by
//   block range with one raw eth_getLogs per range (contract addresses and the
//   Transfer topic only, never monitored addresses in a topic filter), matched
//   in memory on the recipient's lowercase hex straight from the topic; only
//   matches are decoded and checksummed.
// - Never one node's empty answer on trust: a provider's pool may serve the
//   range from a backend that has not imported its last blocks and answer []
//   for them. The range's logs must agree with its blocks: a block whose
//   logsBloom may hold a Transfer of a configured token, but for which the
//   range gave no log, is read again by its hash (an unknown hash is an error,
//   not []); every log's block number and hash must be those of the block read.
//   Ponder's realtime sync and validateLogsAndBlock check the same.
// - Native deposits: the blocks' transactions whose `to` is monitored and
//   whose receipt succeeded, read through the blocks' receipts
//   (evm-natives.ts); a receipt missing for a transaction of a block read is
//   a node behind, never "no deposit".
// - Agreement on due deposits: evm-agreement.ts.
// - Nodes: the network's URLs as a pool (evm-rpc-pool.ts). A log range a
//   provider refuses is split, to the limit its words give when they do.
// - Identity: a token transfer's `logIndex` is its position among its
//   transaction's Transfer logs of the configured tokens, so a transaction
//   re-included in another block keeps its deposits' identities (ADR 0021).
import { getAddress } from 'viem';
import { Bloom } from 'ox';
import {
  assertSameBlocks,
  ChainMovedError,
  ChainUnavailableError,
  type BlockRef,
  type ChainPort,
  type IsMonitored,
  type ObservedTransfer,
  type TransactionReceipt,
} from '../../domain/chains/chain-port.js';
import { nativeAssetOf, type Asset, type Network } from '../../domain/money/networks.js';
import { EvmRpcPool, RangeTooLargeError } from './evm-rpc-pool.js';
import { nativeTransfers } from './evm-natives.js';
import { probeEvmUrl } from './evm-probe.js';
import { blockRef, byBlockAndIndex, hex, type RpcBlock, type RpcLog, type RpcReceipt } from './evm-rpc-types.js';
import { agreedTransfers } from './evm-agreement.js';

export { blockRef, hex, type RpcBlock, type RpcLog, type RpcReceipt };
import type { NodeCheck, NodeProbe } from '../../domain/chains/node-probe.js';
import type { NodeObserver } from './node-observer.js';

/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface EvmChainOptions {
  network: Network;
  /** One or more JSON-RPC URLs: a pool, the best usable first. */
  urls: string[];
  /** Token contracts of this network: asset → address. */
  contracts: Partial<Record<Asset, string>>;
  /** Per request. */
  timeoutMs?: number;
  /** Rounds over the URLs of a failed request (429, 5xx, time-outs, a node behind), with exponential backoff from `retryDelayMs`. */
  retryCount?: number;
  retryDelayMs?: number;
  /** Most blocks per eth_getLogs call (lowered to what a provider says it takes). */
  maxLogRange?: number;
  observer?: NodeObserver;
  /** The network's chain id: a URL whose node says another is taken out of the pool, and transactions are signed for this one. */
  chainId?: number;
}

/**
 * Whether the block's logsBloom admits the log's contract and its event (a block without a bloom proves
 * nothing). Asked only of logs to monitored addresses; memoized per block and value (each test is a keccak,
 * and a range holds thousands of logs of a few contracts). The recipient is not tested: one keccak per
 * deposit cost a tenth of the detection throughput, and what credits a deposit is the URLs' agreement.
 */
const bloomChecks = new WeakMap<RpcBlock, Map<string, boolean>>();
const inBloom = (b: RpcBlock, log: RpcLog): boolean => {
  const bloom = b.logsBloom;
  if (!bloom || !Bloom.validate(bloom)) return true;
  let seen = bloomChecks.get(b);
  if (!seen) bloomChecks.set(b, (seen = new Map()));
  const admits = (value: string | undefined) => {
    const v = (value ?? '0x').toLowerCase();
    let ok = seen.get(v);
    if (ok === undefined) seen.set(v, (ok = Bloom.contains(bloom, v as `0x${string}`)));
    return ok;
  };
  return admits(log.address) && admits(log.topics[0]);
};

export class EvmChainReader implements ChainPort, NodeProbe {
  readonly network: Network;
  protected readonly pool: EvmRpcPool;
  protected readonly tokenByContract = new Map<string, Asset>();
  protected readonly nativeAsset: Asset | null;
  protected readonly expectedChainId: number | undefined;

  constructor(opts: EvmChainOptions) {
    this.network = opts.network;
    this.expectedChainId = opts.chainId;
    this.pool = new EvmRpcPool({
      network: opts.network,
      urls: opts.urls,
      timeoutMs: opts.timeoutMs,
      retryCount: opts.retryCount,
      retryDelayMs: opts.retryDelayMs,
      logRange: opts.maxLogRange,
      observer: opts.observer,
    });
    for (const [asset, address] of Object.entries(opts.contracts)) {
      if (address) this.tokenByContract.set(address.toLowerCase(), asset as Asset);
    }
    this.nativeAsset = nativeAssetOf(opts.network);
  }

  /** One JSON-RPC call through the pool. */
  protected call<T>(method: string, params: unknown[]): Promise<T> {
    return this.pool.call<T>(method, params);
  }

  /** The URLs' state (ops chains check). */
  nodes() {
    return this.pool.status();
  }

  /**
   * Each URL asked what the scanner and the sender need (ops chains check, and
   * the chain-worker at start-up): evm-probe.ts.
   */
  async probe(): Promise<NodeCheck[]> {
    return Promise.all(this.pool.urls.map((url) => probeEvmUrl(url, { network: this.network, pool: this.pool, expectedChainId: this.expectedChainId, logFilter: this.tokenByContract.size > 0 ? this.logFilter() : null })));
  }

  async head(): Promise<BlockRef> {
    await this.pool.heads().catch(() => undefined);
    const b = await this.call<RpcBlock | null>('eth_getBlockByNumber', ['latest', false]);
    if (!b) throw new ChainUnavailableError(this.network, 'bad_response', 'the node has no latest block');
    return blockRef(b);
  }

  async blockByNumber(number: bigint): Promise<BlockRef | null> {
    const b = await this.call<RpcBlock | null>('eth_getBlockByNumber', [hex(number), false]);
    return b ? blockRef(b) : null;
  }

  async blockByHash(hash: string): Promise<BlockRef | null> {
    const b = await this.call<RpcBlock | null>('eth_getBlockByHash', [hash, false]);
    return b ? blockRef(b) : null;
  }

  /** The range's blocks with their transactions' hashes. */
  private async headers(from: bigint, to: bigint): Promise<RpcBlock[]> {
    const numbers: bigint[] = [];
    for (let n = from; n <= to; n++) numbers.push(n);
    // Concurrent calls in one tick go out as one JSON-RPC batch.
    const blocks = await Promise.all(numbers.map((n) => this.call<RpcBlock | null>('eth_getBlockByNumber', [hex(n), false])));
    return blocks.map((b, i) => {
      if (!b) throw new ChainUnavailableError(this.network, 'node_behind', `the node does not have block ${numbers[i]} (yet)`);
      return b;
    });
  }

  async blocks(from: bigint, to: bigint): Promise<BlockRef[]> {
    return (await this.headers(from, to)).map(blockRef);
  }

  protected logFilter(): { address: string[]; topics: string[] } {
    return { address: [...this.tokenByContract.keys()], topics: [TRANSFER_TOPIC] };
  }

  /** eth_getLogs of the token contracts' Transfer logs over [from, to], in ranges the URLs take. */
  private async transferLogs(from: bigint, to: bigint): Promise<RpcLog[]> {
    if (this.tokenByContract.size === 0) return [];
    const out: RpcLog[] = [];
    let start = from;
    while (start <= to) {
      const range = BigInt(this.pool.logRange());
      const end = start + range - 1n < to ? start + range - 1n : to;
      out.push(...(await this.logsSplitting(start, end)));
      start = end + 1n;
    }
    return out;
  }

  private async logsSplitting(from: bigint, to: bigint): Promise<RpcLog[]> {
    try {
      return await this.call<RpcLog[]>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), ...this.logFilter() }]);
    } catch (err) {
      if (!(err instanceof RangeTooLargeError)) throw err;
      const span = to - from + 1n;
      if (span <= 1n) throw new ChainUnavailableError(this.network, 'bad_response', `eth_getLogs of one block refused as too large: ${err.message}`);
      // The provider's own limit when it said it (learnt by the pool), else half of what it refused.
      const limit = err.limit !== undefined && BigInt(err.limit) < span ? BigInt(err.limit) : span / 2n;
      if (err.limit === undefined) this.pool.lowerLogRange(err.url, Number(limit));
      const out: RpcLog[] = [];
      for (let start = from; start <= to; start += limit) {
        const end = start + limit - 1n < to ? start + limit - 1n : to;
        out.push(...(await this.logsSplitting(start, end)));
      }
      return out;
    }
  }

  /** Whether the block's logsBloom may hold a Transfer log of a configured token (a bloom never misses one). */
  private mayHoldTransfer(b: RpcBlock): boolean {
    const bloom = b.logsBloom;
    if (!bloom || !Bloom.validate(bloom)) return true; // no bloom to prove anything with: the block is read by hash
    if (/^0x0*$/.test(bloom) || !Bloom.contains(bloom, TRANSFER_TOPIC)) return false;
    for (const contract of this.tokenByContract.keys()) if (Bloom.contains(bloom, contract as `0x${string}`)) return true;
    return false;
  }

  /**
   * The range's logs, checked against its blocks: a block that may hold a
   * token Transfer (its bloom) and got none is read again by its hash, where a
   * node that lacks the block errs instead of answering [].
   */
  private async provedLogs(blocks: RpcBlock[], logs: RpcLog[]): Promise<RpcLog[]> {
    const withLogs = new Set(logs.map((l) => BigInt(l.blockNumber)));
    const unproved = blocks.filter((b) => !withLogs.has(BigInt(b.number)) && this.mayHoldTransfer(b));
    // In block and log order whatever order the node answered in: a log's position in its transaction must be
    // the one its receipt gives (agreedTransfers).
    if (unproved.length === 0) return [...logs].sort(byBlockAndIndex);
    const again = await Promise.all(unproved.map((b) => this.call<RpcLog[]>('eth_getLogs', [{ blockHash: b.hash, ...this.logFilter() }])));
    return [...logs, ...again.flat()].sort(byBlockAndIndex);
  }

  /** The transfers among `logs` (Transfer logs of the configured tokens, in node order) to monitored addresses. */
  protected tokenTransfers(logs: RpcLog[], blockOf: (log: RpcLog) => BlockRef, isMonitored: IsMonitored): ObservedTransfer[] {
    const ordinal = new Map<string, number>();
    const out: ObservedTransfer[] = [];
    for (const log of logs) {
      const asset = this.tokenByContract.get(log.address.toLowerCase());
      if (!asset || log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3) continue;
      const position = ordinal.get(log.transactionHash) ?? 0;
      ordinal.set(log.transactionHash, position + 1);
      const toKey = `0x${log.topics[2]!.slice(26)}`.toLowerCase();
      if (!isMonitored(toKey)) continue;
      out.push({
        network: this.network,
        asset,
        txid: log.transactionHash.toLowerCase(),
        logIndex: position,
        block: blockOf(log),
        from: getAddress(`0x${log.topics[1]!.slice(26)}`),
        to: getAddress(toKey),
        amount: BigInt(log.data === '0x' ? 0 : log.data),
      });
    }
    return out;
  }

  async transfers(from: bigint, to: bigint, isMonitored: IsMonitored, assets?: ReadonlySet<Asset>, expected?: readonly BlockRef[]): Promise<ObservedTransfer[]> {
    // Native transfers only when some wallet is of the native asset; logs only when some wallet is of a token.
    const needNative = this.nativeAsset !== null && (!assets || assets.has(this.nativeAsset));
    const needLogs = !assets || [...this.tokenByContract.values()].some((a) => assets.has(a));
    const [blocks, rangeLogs] = await Promise.all([this.headers(from, to), needLogs ? this.transferLogs(from, to) : Promise.resolve([])]);
    // The blocks whose blooms prove the logs must be the caller's: a sibling of the head, empty, proves nothing of them.
    assertSameBlocks(blocks.map(blockRef), expected);
    const logs = needLogs ? await this.provedLogs(blocks, rangeLogs) : [];
    const byNumber = new Map(blocks.map((b) => [BigInt(b.number), b]));
    const txsOf = new Map<RpcBlock, Set<string>>();
    const refOf = (log: RpcLog): BlockRef => {
      const b = byNumber.get(BigInt(log.blockNumber));
      if (!b || b.hash !== log.blockHash) throw new ChainMovedError(`log of ${log.transactionHash} is in another block ${BigInt(log.blockNumber)}`);
      // A log must be of a transaction of its block, and its block's bloom must admit it: else the node made it up.
      let txs = txsOf.get(b);
      if (!txs) txsOf.set(b, (txs = new Set((b.transactions ?? []).map((t) => (typeof t === 'string' ? t : t.hash).toLowerCase()))));
      if (!txs.has(log.transactionHash.toLowerCase()) || !inBloom(b, log)) {
        throw new ChainUnavailableError(this.network, 'bad_response', `a log of ${log.transactionHash} that block ${BigInt(log.blockNumber)} does not hold`);
      }
      return blockRef(b);
    };
    // Logs come sorted by block and log index; native transfers (evm-natives.ts) are merged in by block.
    const tokens = this.tokenTransfers(logs, refOf, isMonitored);
    const natives = needNative ? await nativeTransfers({ network: this.network, asset: this.nativeAsset!, call: (m, p) => this.call(m, p) }, blocks, isMonitored) : [];
    return [...tokens, ...natives].sort((a, b) => (a.block.number < b.block.number ? -1 : a.block.number > b.block.number ? 1 : 0));
  }

  async transfersOf(txid: string, isMonitored: IsMonitored): Promise<ObservedTransfer[]> {
    const receipt = await this.call<RpcReceipt | null>('eth_getTransactionReceipt', [txid]);
    if (!receipt || receipt.status !== '0x1' || !receipt.blockHash) return [];
    const header = await this.call<RpcBlock | null>('eth_getBlockByHash', [receipt.blockHash, false]);
    if (!header) return [];
    const block = blockRef(header);
    const out = this.tokenTransfers(receipt.logs, () => block, isMonitored);
    if (this.nativeAsset && receipt.to && isMonitored(receipt.to.toLowerCase())) {
      const tx = await this.call<{ from: `0x${string}`; to: `0x${string}`; value: `0x${string}` } | null>('eth_getTransactionByHash', [txid]);
      if (tx && BigInt(tx.value) > 0n) {
        out.push({
          network: this.network,
          asset: this.nativeAsset,
          txid: txid.toLowerCase(),
          logIndex: null,
          block,
          from: getAddress(tx.from),
          to: getAddress(tx.to),
          amount: BigInt(tx.value),
        });
      }
    }
    return out;
  }

  async minedOnAnyNode(txid: string): Promise<boolean> {
    const answers = await this.pool.onEvery<RpcReceipt | null>('eth_getTransactionReceipt', [txid]);
    if (answers.some((a) => a.value?.blockHash && a.value.status === '0x1')) return true;
    const failed = answers.find((a) => a.error);
    if (failed || answers.length < this.pool.urls.length) {
      throw failed?.error instanceof ChainUnavailableError ? failed.error : new ChainUnavailableError(this.network, 'bad_response', `not every URL could say whether ${txid} is mined`);
    }
    return false;
  }

  async agreedTransfers(txids: readonly string[], isMonitored: IsMonitored, blockOf?: ReadonlyMap<string, { number: bigint; hash: string }>): Promise<Set<string>> {
    const reading = { nativeAsset: this.nativeAsset, pool: this.pool, tokenTransfers: (logs: RpcLog[], block: BlockRef) => this.tokenTransfers(logs, () => block, isMonitored) };
    return agreedTransfers(reading, txids, isMonitored, blockOf);
  }

  async receipt(txid: string): Promise<TransactionReceipt | null> {
    const r = await this.call<RpcReceipt | null>('eth_getTransactionReceipt', [txid]);
    const settled = r?.blockHash ? await this.withBlock(txid, r) : null;
    return settled && { txid: settled.txid, status: settled.status, block: settled.block };
  }

  /**
   * A receipt with its block, read by the receipt's block hash (null while the node serves no such block:
   * a receipt from a fork), and the fee it paid. Reading (rescan) and sending share it.
   */
  protected async withBlock(txid: string, r: RpcReceipt): Promise<(TransactionReceipt & { feePaid: bigint }) | null> {
    const header = await this.call<RpcBlock | null>('eth_getBlockByHash', [r.blockHash, false]);
    if (!header) return null;
    return {
      txid: txid.toLowerCase(),
      status: r.status === '0x1' ? 'success' : 'reverted',
      block: blockRef(header),
      feePaid: BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice ?? '0x0'),
    };
  }
}
