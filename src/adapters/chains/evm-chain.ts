// ChainPort for ETH and BSC on viem over JSON-RPC (docs/operations.md#deposits).
// - Token deposits: `Transfer` logs of the configured token contracts, read by
//   block range with one raw eth_getLogs per range (contract addresses and the
//   Transfer topic only, never monitored addresses in a topic filter), matched
//   in memory on the recipient's lowercase hex straight from the topic; only
//   matches are decoded and checksummed.
// - Native deposits: the blocks' transactions whose `to` is monitored and
//   whose receipt succeeded.
// - Nodes: several URLs per network (viem's fallback transport), each retried
//   with exponential backoff on 429, 5xx and time-outs; what still fails is a
//   ChainUnavailableError with its kind. An eth_getLogs range the node refuses
//   as too large is split in half, and the smaller range is kept for later.
// - Identity: a token transfer's `logIndex` is its position among its
//   transaction's Transfer logs of the configured tokens, so a transaction
//   re-included in another block keeps its deposits' identities (ADR 0021).
import {
  BaseError,
  HttpRequestError,
  TimeoutError,
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  fallback,
  getAddress,
  http,
  keccak256,
  numberToHex,
  serializeTransaction,
  type Hex,
  type PublicClient,
  type TransactionSerializableEIP1559,
  type Transport,
} from 'viem';
import {
  ChainUnavailableError,
  type BlockRef,
  type ChainPort,
  type IsMonitored,
  type ObservedTransfer,
  type TransactionReceipt,
} from '../../domain/chains/chain-port.js';
import { ASSET_SPECS, isNativeCurrency, nativeAssetOf, type Asset, type Network } from '../../domain/money/networks.js';
import type { EvmFees } from '../../domain/transfers/outgoing-transfer.js';
import {
  BroadcastRejected,
  type ChainSender,
  type SentReceipt,
  type SignDigest,
  type SignedTransaction,
  type TransferCall,
  TransferRefused,
  type UnsignedTransfer,
} from '../../domain/transfers/ports.js';

/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface EvmChainOptions {
  network: Network;
  /** One or more JSON-RPC URLs, tried in order. */
  urls: string[];
  /** Token contracts of this network: asset → address. */
  contracts: Partial<Record<Asset, string>>;
  /** Per request, before a retry. */
  timeoutMs?: number;
  /** Retries per URL of a failed request (429, 5xx, time-outs), with exponential backoff from `retryDelayMs`. */
  retryCount?: number;
  retryDelayMs?: number;
  /** Most blocks per eth_getLogs call (lowered when a node refuses a range). */
  maxLogRange?: number;
}

interface RpcBlock {
  number: `0x${string}`;
  hash: `0x${string}`;
  parentHash: `0x${string}`;
  baseFeePerGas?: `0x${string}`;
  transactions?: { hash: `0x${string}`; from: `0x${string}`; to: `0x${string}` | null; value: `0x${string}` }[];
}

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: `0x${string}`;
  blockHash: string;
  transactionHash: string;
  logIndex: `0x${string}`;
}

interface RpcReceipt {
  status: `0x${string}`;
  blockNumber: `0x${string}`;
  blockHash: string;
  transactionHash: string;
  to: string | null;
  logs: RpcLog[];
  gasUsed: `0x${string}`;
  effectiveGasPrice?: `0x${string}`;
}

const hex = (n: bigint) => `0x${n.toString(16)}` as const;

/** The phrasings of providers refusing a log range as too large or too many results. */
const RANGE_TOO_LARGE =
  /(range|block range).*(too (large|wide|big)|exceed|limit)|too many (results|logs|blocks)|more than \d+ (results|logs)|response size|limit exceeded|query timeout|returned more than|max(imum)? (block )?range|10000 results|5000 blocks|log response size/i;

const blockRef = (b: RpcBlock): BlockRef => ({ number: BigInt(b.number), hash: b.hash, parentHash: b.parentHash });

/** Gas of a plain native transfer to an address without code (the treasury, a deposit address). */
export const NATIVE_TRANSFER_GAS = 21_000n;
/** Percent added to the node's gas estimate of a token transfer. */
const GAS_LIMIT_MARGIN_PERCENT = 20n;

/** How nodes (geth, reth, anvil, BSC) phrase a refused raw transaction. */
const KNOWN_TX = /already known|already imported|known transaction|transaction already exists/i;
const REFUSALS: [RegExp, BroadcastRejected['reason']][] = [
  [/nonce too low|nonce is too low|old nonce/i, 'nonce_too_low'],
  [/underpriced|fee too low|max fee per gas less than block base fee|gas price too low/i, 'underpriced'],
  [/insufficient funds|insufficient balance/i, 'insufficient_funds'],
];

export class EvmChainPort implements ChainPort, ChainSender {
  readonly network: Network;
  private readonly client: PublicClient<Transport>;
  private readonly tokenByContract = new Map<string, Asset>();
  private readonly nativeAsset: Asset | null;
  private maxLogRange: bigint;

  constructor(opts: EvmChainOptions) {
    if (opts.urls.length === 0) throw new Error(`${opts.network}: no RPC URL`);
    this.network = opts.network;
    const retryCount = opts.retryCount ?? 3;
    const retryDelay = opts.retryDelayMs ?? 250;
    const timeout = opts.timeoutMs ?? 10_000;
    const transports = opts.urls.map((url) => http(url, { timeout, retryCount, retryDelay, batch: { batchSize: 100, wait: 0 } }));
    this.client = createPublicClient({
      transport: transports.length === 1 ? transports[0]! : fallback(transports, { retryCount: 0 }),
      cacheTime: 0,
    });
    for (const [asset, address] of Object.entries(opts.contracts)) {
      if (address) this.tokenByContract.set(address.toLowerCase(), asset as Asset);
    }
    this.nativeAsset = nativeAssetOf(opts.network);
    this.maxLogRange = BigInt(opts.maxLogRange ?? 1000);
  }

  /** One JSON-RPC call; a failure that survived the retries becomes a ChainUnavailableError. */
  private async call<T>(method: string, params: unknown[]): Promise<T> {
    try {
      return (await this.client.request({ method, params } as never)) as T;
    } catch (err) {
      throw this.unavailable(err, method);
    }
  }

  private unavailable(err: unknown, method: string): Error {
    if (!(err instanceof BaseError)) return new ChainUnavailableError(this.network, 'unreachable', `${method}: ${String(err)}`);
    const timeout = err.walk((e) => e instanceof TimeoutError);
    if (timeout) return new ChainUnavailableError(this.network, 'timeout', `${method}: the node did not answer in time`);
    const http = err.walk((e) => e instanceof HttpRequestError) as HttpRequestError | null;
    if (http) {
      const status = http.status;
      const kind = status === 429 ? 'rate_limited' : status !== undefined && status >= 500 ? 'server_error' : status === undefined ? 'unreachable' : 'bad_response';
      return new ChainUnavailableError(this.network, kind, `${method}: ${status ? `HTTP ${status}` : 'no connection'} (${http.url})`);
    }
    return err; // a JSON-RPC error of the node: the caller decides (e.g. a log range too large)
  }

  async head(): Promise<BlockRef> {
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

  private async fullBlocks(from: bigint, to: bigint, full: boolean): Promise<RpcBlock[]> {
    const numbers: bigint[] = [];
    for (let n = from; n <= to; n++) numbers.push(n);
    // Concurrent calls in one tick go out as one JSON-RPC batch.
    const blocks = await Promise.all(numbers.map((n) => this.call<RpcBlock | null>('eth_getBlockByNumber', [hex(n), full])));
    return blocks.map((b, i) => {
      if (!b) throw new ChainUnavailableError(this.network, 'bad_response', `the node does not have block ${numbers[i]}`);
      return b;
    });
  }

  async blocks(from: bigint, to: bigint): Promise<BlockRef[]> {
    return (await this.fullBlocks(from, to, false)).map(blockRef);
  }

  /** eth_getLogs of the token contracts' Transfer logs over [from, to], split when the node refuses the range. */
  private async transferLogs(from: bigint, to: bigint): Promise<RpcLog[]> {
    if (this.tokenByContract.size === 0) return [];
    const out: RpcLog[] = [];
    let start = from;
    while (start <= to) {
      const end = start + this.maxLogRange - 1n < to ? start + this.maxLogRange - 1n : to;
      out.push(...(await this.logsSplitting(start, end)));
      start = end + 1n;
    }
    return out;
  }

  private async logsSplitting(from: bigint, to: bigint): Promise<RpcLog[]> {
    try {
      return await this.call<RpcLog[]>('eth_getLogs', [
        { fromBlock: hex(from), toBlock: hex(to), address: [...this.tokenByContract.keys()], topics: [TRANSFER_TOPIC] },
      ]);
    } catch (err) {
      const message = err instanceof BaseError ? `${err.shortMessage} ${err.details ?? ''} ${err.message}` : String(err);
      if (to > from && !(err instanceof ChainUnavailableError && err.kind !== 'bad_response') && RANGE_TOO_LARGE.test(message)) {
        const span = to - from + 1n;
        const half = span / 2n;
        if (half < this.maxLogRange) this.maxLogRange = half > 0n ? half : 1n;
        return [...(await this.logsSplitting(from, from + half - 1n)), ...(await this.logsSplitting(from + half, to))];
      }
      throw err instanceof ChainUnavailableError ? err : new ChainUnavailableError(this.network, 'bad_response', `eth_getLogs: ${message.slice(0, 300)}`);
    }
  }

  /** The transfers among `logs` (Transfer logs of the configured tokens, in node order) to monitored addresses. */
  private tokenTransfers(logs: RpcLog[], blockOf: (log: RpcLog) => BlockRef, isMonitored: IsMonitored): ObservedTransfer[] {
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

  async transfers(from: bigint, to: bigint, isMonitored: IsMonitored, assets?: ReadonlySet<Asset>): Promise<ObservedTransfer[]> {
    // Block bodies only when some wallet is of the native asset; logs only when some wallet is of a token.
    const needNative = this.nativeAsset !== null && (!assets || assets.has(this.nativeAsset));
    const needLogs = !assets || [...this.tokenByContract.values()].some((a) => assets.has(a));
    const [blocks, logs] = await Promise.all([this.fullBlocks(from, to, needNative), needLogs ? this.transferLogs(from, to) : Promise.resolve([])]);
    const byNumber = new Map(blocks.map((b) => [BigInt(b.number), b]));
    const refOf = (log: RpcLog): BlockRef => {
      const b = byNumber.get(BigInt(log.blockNumber));
      if (!b || b.hash !== log.blockHash) throw new Error(`chain moved: log of ${log.transactionHash} is in another block ${BigInt(log.blockNumber)}`);
      return blockRef(b);
    };
    // Logs come sorted by block and log index; native transfers are added per block below.
    const tokens = this.tokenTransfers(logs, refOf, isMonitored);
    const natives: ObservedTransfer[] = [];
    if (needNative) {
      const candidates = blocks.flatMap((b) =>
        (b.transactions ?? []).filter((tx) => tx.to && BigInt(tx.value) > 0n && isMonitored(tx.to.toLowerCase())).map((tx) => ({ b, tx })),
      );
      const receipts = await Promise.all(candidates.map(({ tx }) => this.call<RpcReceipt | null>('eth_getTransactionReceipt', [tx.hash])));
      candidates.forEach(({ b, tx }, i) => {
        if (receipts[i]?.status !== '0x1') return;
        natives.push({
          network: this.network,
          asset: this.nativeAsset!,
          txid: tx.hash.toLowerCase(),
          logIndex: null,
          block: blockRef(b),
          from: getAddress(tx.from),
          to: getAddress(tx.to!),
          amount: BigInt(tx.value),
        });
      });
    }
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

  async receipt(txid: string): Promise<TransactionReceipt | null> {
    const r = await this.sentReceipt(txid);
    return r && { txid: r.txid, status: r.status, block: r.block };
  }

  // The sending side (ChainSender): what the outgoing-transfer pipeline needs.

  async sentReceipt(txid: string): Promise<SentReceipt | null> {
    const r = await this.call<RpcReceipt | null>('eth_getTransactionReceipt', [txid]);
    if (!r?.blockHash) return null;
    const header = await this.call<RpcBlock | null>('eth_getBlockByHash', [r.blockHash, false]);
    if (!header) return null;
    const price = BigInt(r.effectiveGasPrice ?? '0x0');
    return {
      txid: txid.toLowerCase(),
      status: r.status === '0x1' ? 'success' : 'reverted',
      block: blockRef(header),
      feePaid: BigInt(r.gasUsed) * price,
    };
  }

  async nativeBalance(address: string): Promise<bigint> {
    return BigInt(await this.call<Hex>('eth_getBalance', [address, 'latest']));
  }

  private contractOf(asset: Asset): Hex {
    for (const [contract, a] of this.tokenByContract) if (a === asset) return contract as Hex;
    throw new Error(`${this.network}: no contract is configured for ${asset}`);
  }

  async tokenBalance(asset: Asset, address: string): Promise<bigint> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'balanceOf', args: [address as Hex] });
    const out = await this.call<Hex>('eth_call', [{ to: this.contractOf(asset), data }, 'latest']);
    return out === '0x' ? 0n : BigInt(out);
  }

  async feeQuote(): Promise<EvmFees> {
    const [latest, tip] = await Promise.all([
      this.call<RpcBlock | null>('eth_getBlockByNumber', ['latest', false]),
      this.call<Hex>('eth_maxPriorityFeePerGas', []).then(BigInt, () => 1_000_000_000n),
    ]);
    const base = BigInt(latest?.baseFeePerGas ?? '0x0');
    // Room for the base fee to double before the transaction is mined (it rises at most 12.5 % per block).
    return { maxFeePerGas: 2n * base + tip, maxPriorityFeePerGas: tip };
  }

  private callOf(call: TransferCall): { to: Hex; value: bigint; data: Hex | undefined } {
    if (call.asset === 'TRX') throw new Error(`${this.network}: TRX is not sent on an EVM chain`);
    if (ASSET_SPECS[call.asset].native) return { to: call.to as Hex, value: call.amount, data: undefined };
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [call.to as Hex, call.amount] });
    return { to: this.contractOf(call.asset), value: 0n, data };
  }

  async gasLimit(call: TransferCall): Promise<bigint> {
    if (isNativeCurrency(call.asset)) return NATIVE_TRANSFER_GAS;
    const { to, data } = this.callOf(call);
    let estimate: bigint;
    try {
      estimate = BigInt(await this.call<Hex>('eth_estimateGas', [{ from: call.from, to, data }]));
    } catch (err) {
      // JSON-RPC 3 (geth, reth, anvil) or the phrase: the contract reverts the transfer itself.
      const reverted = err instanceof BaseError && err.walk((e) => (e as { code?: unknown }).code === 3 || /execution reverted/i.test((e as Error).message ?? ''));
      if (reverted) throw new TransferRefused(this.network, `${this.network}: the ${call.asset} contract refuses the transfer from ${call.from} to ${call.to} (a blocked address or a paused token): ${err.shortMessage.slice(0, 200)}`);
      throw err;
    }
    return (estimate * (100n + GAS_LIMIT_MARGIN_PERCENT) + 99n) / 100n;
  }

  /** The nonce decides on EVM: no expiring transactions. */
  async finalizedTime(): Promise<null> {
    return null;
  }

  /** Gas is a limit times fees on EVM, not a burn estimate. */
  async burnEstimate(): Promise<null> {
    return null;
  }

  async minedNonce(address: string): Promise<bigint> {
    return BigInt(await this.call<Hex>('eth_getTransactionCount', [address, 'latest']));
  }

  private chainId: Promise<number> | undefined;

  async sign(tx: UnsignedTransfer, sign: SignDigest): Promise<SignedTransaction> {
    if (tx.nonce === null || tx.gasLimit === null || tx.fees === null) throw new Error(`${this.network}: a transaction needs a nonce, a gas limit and fees`);
    this.chainId ??= this.call<Hex>('eth_chainId', []).then((id) => Number(BigInt(id)));
    const { to, value, data } = this.callOf(tx);
    const unsigned: TransactionSerializableEIP1559 = {
      type: 'eip1559',
      chainId: await this.chainId,
      nonce: Number(tx.nonce),
      to,
      value,
      data,
      gas: tx.gasLimit,
      maxFeePerGas: tx.fees.maxFeePerGas,
      maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas,
    };
    const sig = await sign(keccak256(serializeTransaction(unsigned), 'bytes'));
    const raw = serializeTransaction(unsigned, {
      r: numberToHex(sig.r, { size: 32 }),
      s: numberToHex(sig.s, { size: 32 }),
      yParity: sig.recovery,
    });
    return { txid: keccak256(raw), raw, expiresAt: null };
  }

  async broadcast(raw: string): Promise<'accepted' | 'known'> {
    try {
      await this.client.request({ method: 'eth_sendRawTransaction', params: [raw as Hex] });
      return 'accepted';
    } catch (err) {
      const mapped = this.unavailable(err, 'eth_sendRawTransaction');
      if (mapped instanceof ChainUnavailableError) throw mapped;
      const text = err instanceof BaseError ? `${err.details ?? ''} ${err.shortMessage}` : String(err);
      if (KNOWN_TX.test(text)) return 'known';
      const refusal = REFUSALS.find(([re]) => re.test(text));
      throw new BroadcastRejected(refusal?.[1] ?? 'invalid', `${this.network}: ${text.trim().slice(0, 300)}`);
    }
  }
}
