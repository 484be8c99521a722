// ChainPort for TRON against a full node's HTTP API (java-tron, TronGrid, or
// the sandbox's stand-in; docs/operations.md#deposits).
// - Blocks: wallet/getnowblock, getblockbynum, getblockbyid and
//   getblockbylimitnext (up to 100 blocks a call). A block's hash is its
//   64-hex block id; its parent hash is the parent's id.
// - TRC-20 deposits: the `Transfer` logs in wallet/gettransactioninfobyblocknum
//   of each block (one call a block, several in flight), kept when the log's
//   contract is a configured token, the transaction succeeded and the
//   recipient is monitored. TRX is not an asset of the contract (section 1
//   lists USDT_TRON only), so TRX sent to a deposit address is not reported.
// - Reads are plain JSON POSTs (fetch), so retries, time-outs and fallback
//   are this adapter's own; tronweb builds and signs transactions (the
//   sandbox, and the sending side).
// - Nodes: several URLs (comma-separated), each retried with backoff on 429,
//   5xx and time-outs before the next is tried; what still fails is a
//   ChainUnavailableError with its kind.
// - Identity: a transfer's `logIndex` is its position among its transaction's
//   Transfer logs of the configured tokens, as on the EVM adapter (ADR 0021).
// - Sending (ChainSender, ADR 0027): transactions are built by the node
//   (createtransaction, triggersmartcontract with a fee_limit) and signed only
//   after the decoded raw_data_hex was found to say exactly what was asked
//   (one contract, owner, recipient, amount, contract call, fee_limit, no
//   memo), txID to be its sha256 and the JSON to encode to the same bytes:
//   the node's answer is never signed on trust. No nonce: an attempt expires
//   (raw_data.expiration), and the pipeline signs a new one only once a block
//   past the finality depth is later than every expiration.
import { createHash } from 'node:crypto';
import { utils as tronUtils } from 'tronweb';
import { decodeErrorResult } from 'viem';
import {
  BroadcastRejected,
  type ChainSender,
  type DigestSignature,
  type SentReceipt,
  type SignDigest,
  type SignedTransaction,
  type TransferCall,
  TransferRefused,
  type TronBurn,
  type UnsignedTransfer,
} from '../../domain/transfers/ports.js';
import {
  ChainMovedError,
  ChainUnavailableError,
  type BlockRef,
  type ChainPort,
  type IsMonitored,
  type ObservedTransfer,
  type TransactionReceipt,
} from '../../domain/chains/chain-port.js';
import type { Asset, Network } from '../../domain/money/networks.js';
import { evmBytesFromTronAddress, tronAddressFromEvmBytes } from './address-codec.js';
import { TRANSFER_TOPIC } from './evm-reading.js';
import type { NodeCheck, NodeProbe } from '../../domain/chains/node-probe.js';
import type { NodeObserver } from './node-observer.js';
import { classifyNodeError } from './provider-errors.js';

export interface TronChainOptions {
  network: Network;
  /** One or more full-node HTTP API URLs, tried in order. */
  urls: string[];
  /** Token contracts of this network: asset → base58 address. */
  contracts: Partial<Record<Asset, string>>;
  /** Sent as TRON-PRO-API-KEY (TronGrid). */
  apiKey?: string;
  timeoutMs?: number;
  retryCount?: number;
  retryDelayMs?: number;
  /** Blocks whose transaction infos are fetched at once. */
  concurrency?: number;
  /** Blocks after which a TRON block is irreversible (solidified): 19 of the 27 super representatives. */
  finalityDepth?: number;
  observer?: NodeObserver;
}

interface TronBlock {
  blockID?: string;
  transactions?: unknown[];
  block_header?: { raw_data?: { number?: number; parentHash?: string } };
}

interface TronLog {
  address: string;
  topics?: string[];
  data?: string;
}

interface TronInfo {
  id: string;
  /** Sun burnt: energy, bandwidth and account creation. */
  fee?: number;
  blockNumber?: number;
  receipt?: { result?: string };
  result?: string;
  log?: TronLog[];
}

const TOPIC = TRANSFER_TOPIC.slice(2);
const HEX_ID = /^[0-9a-fA-F]{64}$/;

/**
 * JSON as java-tron reads and writes it: amounts (int64 sun, token units) are
 * plain JSON integers. They are bigints here and never pass through a JS
 * number: each is written as a marked string, then unquoted.
 */
const BIG = '\u0000big:';
export const tronJson = (body: unknown): string =>
  JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? `${BIG}${v}` : v)).replace(/"\\u0000big:(-?\d+)"/g, '$1');

/** An int64 the decoder gave as a JS number, as a bigint; null when it may not be exact. */
const exactInt = (v: unknown): bigint | null => (typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : null);

const hexToBytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const sha256Hex = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const word = (hex: string) => hex.padStart(64, '0');
const { txJsonToPb, txPbToRawDataHex } = tronUtils.transaction;
const { deserializeTransaction } = tronUtils.deserializeTx;
/** java-tron's Transaction.raw protobuf, which tronweb registers on globalThis: the contracts counted in the bytes themselves. */
const RawTransaction = (globalThis as unknown as { TronWebProto: { Transaction: { raw: { deserializeBinary(b: Uint8Array): { getContractList(): unknown[] } } } } })
  .TronWebProto.Transaction.raw;

/** The selector of TRC-20 transfer(address,uint256). */
const TRANSFER_SELECTOR = 'a9059cbb';
/**
 * Bytes a transaction is charged for in bandwidth (the signed transaction
 * and java-tron's 64-byte result allowance), rounded up: a TRX transfer is
 * about 270, a TRC-20 transfer about 345.
 */
const TRANSFER_BYTES = 300n;
const CONTRACT_CALL_BYTES = 400n;
/** What a node without transaction history (storage.transHistory.switch off) answers empty. */
const HISTORY_PATHS = new Set(['wallet/gettransactioninfobyblocknum', 'wallet/gettransactioninfobyid']);
/** Blocks searched back from the head for one with transactions, to prove that a node keeps their infos. */
const HISTORY_PROBE_BLOCKS = 1000n;
/** A rate limit with no penalty of its own keeps the URL out this long. */
const DEFAULT_PENALTY_MS = 2_000;
/** The longest a call waits for a penalty to end; longer ones fail the call (the step backs off). */
const MAX_PENALTY_WAIT_MS = 3_000;
/** Chain parameters are read again after this long. */
const PARAMETERS_TTL_MS = 10 * 60_000;
/**
 * The node's own transactions expire a minute after its head block; one
 * expiring later than this is refused before signing (a node could otherwise
 * hold back the bytes and stall the transfer until then).
 */
const MAX_EXPIRATION_MS = 10 * 60_000;

/** Codes of broadcasttransaction (java-tron's response_code) and what they mean for the bytes. */
const BUSY_CODES = new Set(['SERVER_BUSY', 'NO_CONNECTION', 'NOT_ENOUGH_EFFECTIVE_CONNECTION', 'BLOCK_UNSOLIDIFIED']);
const DEAD_CODES = new Set(['TRANSACTION_EXPIRATION_ERROR', 'TAPOS_ERROR']);

interface ChainParameters {
  energyFee: bigint;
  bandwidthFee: bigint;
  createAccountFee: bigint;
  createNewAccountFee: bigint;
}

/** The message of a refusal: hex-encoded text on java-tron. */
function refusalText(message: unknown): string {
  if (typeof message !== 'string') return '';
  return /^([0-9a-fA-F]{2})+$/.test(message) ? Buffer.from(message, 'hex').toString('utf8') : message;
}

export class TronChainPort implements ChainPort, ChainSender, NodeProbe {
  readonly network: Network;
  private readonly urls: string[];
  private readonly tokenByContract = new Map<string, Asset>();
  private readonly timeoutMs: number;
  private readonly retryCount: number;
  private readonly retryDelayMs: number;
  private readonly concurrency: number;
  private readonly headers: Record<string, string>;
  private readonly finalityDepth: bigint;
  private parameters: { at: number; value: Promise<ChainParameters> } | null = null;
  /** URLs found to keep no transaction history: never asked for transaction infos. */
  private readonly noHistory = new Set<string>();
  /** Per URL: no call before this time (a provider's rate-limit penalty). */
  private readonly penaltyUntil = new Map<string, number>();
  private readonly observer: NodeObserver | undefined;

  constructor(opts: TronChainOptions) {
    if (opts.urls.length === 0) throw new Error(`${opts.network}: no TRON node URL`);
    this.network = opts.network;
    this.urls = opts.urls.map((u) => u.replace(/\/+$/, ''));
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retryCount = opts.retryCount ?? 3;
    this.retryDelayMs = opts.retryDelayMs ?? 250;
    this.concurrency = opts.concurrency ?? 10;
    this.finalityDepth = BigInt(opts.finalityDepth ?? 19);
    this.observer = opts.observer;
    this.headers = { 'content-type': 'application/json', ...(opts.apiKey ? { 'TRON-PRO-API-KEY': opts.apiKey } : {}) };
    for (const [asset, address] of Object.entries(opts.contracts)) {
      const bytes = address ? evmBytesFromTronAddress(address) : null;
      if (bytes) this.tokenByContract.set(Buffer.from(bytes).toString('hex'), asset as Asset);
    }
  }

  /** One POST to the node's HTTP API, retried on transient failures and across the URLs (none during its rate-limit penalty). */
  private async post<T>(path: string, body: Record<string, unknown>): Promise<T> {
    let last: ChainUnavailableError | null = null;
    for (let attempt = 0; attempt <= this.retryCount; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, this.retryDelayMs * 2 ** (attempt - 1)));
      const now = Date.now();
      const serving = HISTORY_PATHS.has(path) ? this.urls.filter((u) => !this.noHistory.has(u)) : this.urls;
      if (serving.length === 0) {
        throw new ChainUnavailableError(this.network, 'method_not_served', `${path}: no URL keeps transaction history (storage.transHistory.switch is off on every node)`);
      }
      let usable = serving.filter((u) => (this.penaltyUntil.get(u) ?? 0) <= now);
      if (usable.length === 0) {
        const soonest = Math.min(...serving.map((u) => this.penaltyUntil.get(u) ?? 0));
        if (soonest - now > MAX_PENALTY_WAIT_MS) {
          throw new ChainUnavailableError(this.network, 'rate_limited', `${path}: every URL is rate-limited for ${Math.ceil((soonest - now) / 1000)} s more`);
        }
        await new Promise((r) => setTimeout(r, soonest - now));
        usable = serving.filter((u) => (this.penaltyUntil.get(u) ?? 0) <= Date.now());
      }
      for (const base of usable) {
        try {
          return await this.postTo<T>(base, path, body);
        } catch (err) {
          if (!(err instanceof ChainUnavailableError)) throw err;
          last = err;
        }
      }
    }
    throw last ?? new ChainUnavailableError(this.network, 'unreachable', `${path}: no URL answered`);
  }

  /** One POST to one URL, no retry; its failure classified by the providers' catalogue (a rate limit keeps the URL out for its penalty). */
  private async postTo<T>(base: string, path: string, body: Record<string, unknown>): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}/${path}`, { method: 'POST', headers: this.headers, body: tronJson(body), signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const timeout = (err as Error).name === 'TimeoutError';
      this.observer?.error(this.network, base, timeout ? 'timeout' : 'unreachable');
      throw new ChainUnavailableError(this.network, timeout ? 'timeout' : 'unreachable', `${path}: ${timeout ? 'the node did not answer in time' : 'no connection'} (${base})`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch {
      throw new ChainUnavailableError(this.network, 'unreachable', `${path}: the connection dropped (${base})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const error = parsed && typeof parsed === 'object' && 'Error' in parsed ? String((parsed as { Error: unknown }).Error) : null;
    if (res.ok && parsed !== undefined && error === null) return parsed as T;
    const known = classifyNodeError({ status: res.status, code: undefined, message: error ?? text.slice(0, 300), method: path, retryAfter: res.headers.get('retry-after') });
    if (known?.kind === 'rate_limited' || res.status === 429) {
      const ms = known?.penaltyMs ?? DEFAULT_PENALTY_MS;
      this.penaltyUntil.set(base, Date.now() + ms);
      this.observer?.error(this.network, base, 'rate_limited');
      this.observer?.penalty(this.network, base, ms, known?.provider ?? 'http-429');
      throw new ChainUnavailableError(this.network, 'rate_limited', `${path}: HTTP ${res.status}, rate-limited for ${ms} ms (${base})`);
    }
    if (res.status >= 500) {
      this.observer?.error(this.network, base, 'server_error');
      throw new ChainUnavailableError(this.network, 'server_error', `${path}: HTTP ${res.status} (${base})`);
    }
    this.observer?.error(this.network, base, 'bad_response');
    const reason = error ?? (parsed === undefined ? `HTTP ${res.status}, not JSON` : `HTTP ${res.status}`);
    throw new ChainUnavailableError(this.network, 'bad_response', `${path}: ${reason.slice(0, 300)} (${base})`);
  }

  private blockRef(b: TronBlock): BlockRef | null {
    const raw = b.block_header?.raw_data;
    if (!b.blockID || !HEX_ID.test(b.blockID) || !raw) return null;
    return { number: BigInt(raw.number ?? 0), hash: b.blockID.toLowerCase(), parentHash: (raw.parentHash ?? '').toLowerCase() };
  }

  /**
   * Each URL asked what the scanner and the sender need (ops chains check, and
   * the chain-worker at start-up): its head, and whether it keeps transaction
   * history: the infos of a recent block with transactions. java-tron with
   * storage.transHistory.switch off answers [] for every block; such a URL is
   * never asked for transaction infos again.
   */
  async probe(): Promise<NodeCheck[]> {
    return Promise.all(this.urls.map((u) => this.probeOne(u)));
  }

  private async probeOne(base: string): Promise<NodeCheck> {
    const check: NodeCheck = {
      network: this.network,
      url: base,
      reachable: false,
      chainId: null,
      chainIdOk: null,
      head: null,
      lag: null,
      logs: 'n/a',
      logRange: null,
      history: 'unknown',
      problems: [],
      usable: false,
    };
    try {
      const head = this.blockRef(await this.postTo<TronBlock>(base, 'wallet/getnowblock', {}));
      if (!head) throw new Error('no latest block');
      check.head = head.number;
      check.reachable = true;
      const block = await this.recentBlockWithTransactions(base, head.number);
      if (block === null) {
        check.problems.push(`no block with transactions in the last ${HISTORY_PROBE_BLOCKS} to prove transaction history by`);
      } else {
        const infos = await this.postTo<unknown>(base, 'wallet/gettransactioninfobyblocknum', { num: Number(block) });
        check.history = Array.isArray(infos) && infos.length > 0 ? 'kept' : 'not_kept';
      }
    } catch (err) {
      if (!check.reachable) check.problems.push(`not reachable: ${(err as Error).message.slice(0, 160)}`);
      else check.problems.push(`history not proved: ${(err as Error).message.slice(0, 160)}`);
    }
    if (check.history === 'not_kept') {
      const why = 'keeps no transaction history (storage.transHistory.switch is off): deposits cannot be read from this URL';
      check.problems.push(why);
      if (!this.noHistory.has(base)) {
        this.noHistory.add(base);
        this.observer?.unusable(this.network, base, 'no_transaction_history', why);
      }
    }
    check.usable = check.reachable && check.history !== 'not_kept';
    return check;
  }

  /** The newest block at or below `head` that holds transactions, searched back HISTORY_PROBE_BLOCKS; null when none does. */
  private async recentBlockWithTransactions(base: string, head: bigint): Promise<bigint | null> {
    const floor = head > HISTORY_PROBE_BLOCKS ? head - HISTORY_PROBE_BLOCKS : 0n;
    for (let end = head + 1n; end > floor; end -= 100n) {
      const start = end - 100n > floor ? end - 100n : floor;
      const page = await this.postTo<{ block?: TronBlock[] }>(base, 'wallet/getblockbylimitnext', { startNum: Number(start), endNum: Number(end) });
      const found = (page.block ?? [])
        .filter((b) => Array.isArray(b.transactions) && b.transactions.length > 0)
        .map((b) => this.blockRef(b)?.number ?? -1n)
        .reduce((m, n) => (n > m ? n : m), -1n);
      if (found >= 0n) return found;
    }
    return null;
  }

  async head(): Promise<BlockRef> {
    const ref = this.blockRef(await this.post<TronBlock>('wallet/getnowblock', {}));
    if (!ref) throw new ChainUnavailableError(this.network, 'bad_response', 'the node has no latest block');
    return ref;
  }

  async blockByNumber(number: bigint): Promise<BlockRef | null> {
    return this.blockRef(await this.post<TronBlock>('wallet/getblockbynum', { num: Number(number) }));
  }

  async blockByHash(hash: string): Promise<BlockRef | null> {
    if (!HEX_ID.test(hash)) return null;
    return this.blockRef(await this.post<TronBlock>('wallet/getblockbyid', { value: hash }));
  }

  async blocks(from: bigint, to: bigint): Promise<BlockRef[]> {
    return (await this.blockPages(from, to)).map((b) => b.ref);
  }

  /** The blocks of [from, to] (getblockbylimitnext, 100 a call) with how many transactions each holds. */
  private async blockPages(from: bigint, to: bigint): Promise<{ ref: BlockRef; transactions: number }[]> {
    const out: { ref: BlockRef; transactions: number }[] = [];
    for (let start = from; start <= to; start += 100n) {
      const end = start + 100n <= to + 1n ? start + 100n : to + 1n;
      const page = await this.post<{ block?: TronBlock[] }>('wallet/getblockbylimitnext', { startNum: Number(start), endNum: Number(end) });
      const byNumber = new Map<bigint, { ref: BlockRef; transactions: number }>();
      for (const b of page.block ?? []) {
        const ref = this.blockRef(b);
        if (ref) byNumber.set(ref.number, { ref, transactions: Array.isArray(b.transactions) ? b.transactions.length : 0 });
      }
      for (let n = start; n < end; n++) {
        const found = byNumber.get(n);
        // A backend of the pool that has not imported the block yet (or a node missing it).
        if (!found) throw new ChainUnavailableError(this.network, 'node_behind', `the node does not have block ${n} (yet)`);
        out.push(found);
      }
    }
    return out;
  }

  /** The transfers among a transaction info's logs (in node order) to monitored addresses. */
  private tokenTransfers(info: TronInfo, block: BlockRef, isMonitored: IsMonitored): ObservedTransfer[] {
    if (!info.log?.length || info.result === 'FAILED' || (info.receipt?.result && info.receipt.result !== 'SUCCESS')) return [];
    const out: ObservedTransfer[] = [];
    let position = 0;
    for (const log of info.log) {
      if (typeof log.address !== 'string') continue;
      const contract = log.address.toLowerCase().replace(/^41(?=[0-9a-f]{40}$)/, '');
      const asset = this.tokenByContract.get(contract);
      const topics = log.topics ?? [];
      if (!asset || topics[0]?.toLowerCase() !== TOPIC || topics.length !== 3 || !topics.every((t) => /^[0-9a-fA-F]{64}$/.test(t))) continue;
      const index = position++;
      const to = tronAddressFromEvmBytes(hexToBytes(topics[2]!.slice(24)));
      if (!isMonitored(to)) continue;
      out.push({
        network: this.network,
        asset,
        txid: info.id.toLowerCase(),
        logIndex: index,
        block,
        from: tronAddressFromEvmBytes(hexToBytes(topics[1]!.slice(24))),
        to,
        amount: /^[0-9a-fA-F]{1,64}$/.test(log.data ?? '') ? BigInt(`0x${log.data}`) : 0n,
      });
    }
    return out;
  }

  private async infosOf(number: bigint): Promise<TronInfo[]> {
    const infos = await this.post<unknown>('wallet/gettransactioninfobyblocknum', { num: Number(number) });
    // An empty block is [] (or {} on some nodes); anything else unreadable is the node's fault, never "no deposits".
    if (infos && typeof infos === 'object' && !Array.isArray(infos) && Object.keys(infos).length === 0) return [];
    if (!Array.isArray(infos) || !infos.every((i: TronInfo) => i && typeof i.id === 'string' && (i.log === undefined || Array.isArray(i.log)))) {
      throw new ChainUnavailableError(this.network, 'bad_response', `gettransactioninfobyblocknum ${number}: not a list of transaction infos`);
    }
    return infos as TronInfo[];
  }

  async transfers(from: bigint, to: bigint, isMonitored: IsMonitored, assets?: ReadonlySet<Asset>): Promise<ObservedTransfer[]> {
    if (![...this.tokenByContract.values()].some((a) => !assets || assets.has(a))) return [];
    const blocks = await this.blockPages(from, to);
    const infos: TronInfo[][] = new Array(blocks.length);
    let next = 0;
    const worker = async () => {
      while (next < blocks.length) {
        const i = next++;
        const { ref, transactions } = blocks[i]!;
        const got = await this.infosOf(ref.number);
        // java-tron answers [] for a block it does not have, and for every block when it keeps no transaction
        // history: a block that holds transactions must yield their infos (not as many: null infos are skipped).
        if (transactions > 0 && got.length === 0) {
          throw new ChainUnavailableError(
            this.network,
            'node_behind',
            `gettransactioninfobyblocknum ${ref.number}: no transaction info for a block of ${transactions} transactions (a backend behind, or a node without transaction history: storage.transHistory.switch)`,
          );
        }
        infos[i] = got;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, blocks.length) }, worker));
    // The blocks may have changed between the two reads: the infos must belong to them. The blocks are
    // linked by their parents' hashes, so the last one unchanged proves every one before it.
    const last = blocks[blocks.length - 1]!.ref;
    const again = await this.blockByNumber(last.number);
    if (again?.hash !== last.hash) throw new ChainMovedError(`block ${last.number} changed while it was read`);
    return blocks.flatMap(({ ref }, i) => infos[i]!.flatMap((info) => this.tokenTransfers(info, ref, isMonitored)));
  }

  private async included(txid: string): Promise<{ info: TronInfo; block: BlockRef } | null> {
    if (!HEX_ID.test(txid.replace(/^0x/, ''))) return null;
    const info = await this.post<TronInfo | Record<string, never>>('wallet/gettransactioninfobyid', { value: txid.replace(/^0x/, '') });
    if (!('id' in info) || info.blockNumber === undefined) return null;
    const block = await this.blockByNumber(BigInt(info.blockNumber));
    return block ? { info: info as TronInfo, block } : null;
  }

  async transfersOf(txid: string, isMonitored: IsMonitored): Promise<ObservedTransfer[]> {
    const found = await this.included(txid);
    return found ? this.tokenTransfers(found.info, found.block, isMonitored) : [];
  }

  async receipt(txid: string): Promise<TransactionReceipt | null> {
    const found = await this.included(txid);
    if (!found) return null;
    const { info, block } = found;
    const failed = info.result === 'FAILED' || (info.receipt?.result !== undefined && info.receipt.result !== 'SUCCESS');
    return { txid: info.id.toLowerCase(), status: failed ? 'reverted' : 'success', block };
  }

  // Balances (BalanceReader): the treasury status and the sweeps.

  /** TRX in sun; 0 for an address never activated (the node knows no account). */
  async nativeBalance(address: string): Promise<bigint> {
    const account = await this.post<{ balance?: unknown }>('wallet/getaccount', { address, visible: true });
    const balance = account.balance ?? 0;
    // The node writes sun as a JSON number: one past 2^53 could not be read exactly, so it is refused rather than rounded.
    if (typeof balance !== 'number' || !Number.isSafeInteger(balance) || balance < 0) {
      throw new ChainUnavailableError(this.network, 'bad_response', `getaccount: a balance that cannot be read exactly (${String(balance).slice(0, 40)})`);
    }
    return BigInt(balance);
  }

  async tokenBalance(asset: Asset, address: string): Promise<bigint> {
    const contract = [...this.tokenByContract].find(([, a]) => a === asset)?.[0];
    const owner = evmBytesFromTronAddress(address);
    if (!contract || !owner) throw new Error(`${this.network}: no contract for ${asset}, or ${address} is not a TRON address`);
    const out = await this.post<{ constant_result?: string[] }>('wallet/triggerconstantcontract', {
      owner_address: `41${Buffer.from(owner).toString('hex')}`,
      contract_address: `41${contract}`,
      function_selector: 'balanceOf(address)',
      parameter: Buffer.from(owner).toString('hex').padStart(64, '0'),
    });
    const word = out.constant_result?.[0];
    if (word === undefined || !/^[0-9a-fA-F]{1,64}$/.test(word)) throw new ChainUnavailableError(this.network, 'bad_response', 'triggerconstantcontract: no result');
    return BigInt(`0x${word}`);
  }

  // The sending side (ChainSender): what the outgoing-transfer pipeline needs.

  /** EVM fees: none on TRON (energy and bandwidth are burnt, see burnEstimate). */
  async feeQuote(): Promise<null> {
    return null;
  }

  async gasLimit(): Promise<null> {
    return null;
  }

  /** No nonces on TRON: transactions expire instead. */
  async minedNonce(): Promise<null> {
    return null;
  }

  async settledNonce(): Promise<null> {
    return null;
  }

  /** The receipt as any URL has it; null only when every URL answered without it (one that cannot answer throws). */
  async sentReceiptOnEveryNode(txid: string): Promise<SentReceipt | null> {
    if (!HEX_ID.test(txid.replace(/^0x/, ''))) return null;
    const answers = await Promise.all(
      this.urls.map((base) =>
        this.postTo<TronInfo | Record<string, never>>(base, 'wallet/gettransactioninfobyid', { value: txid.replace(/^0x/, '') }).then(
          (info) => ({ info }),
          (error: Error) => ({ error }),
        ),
      ),
    );
    const found = answers.find((a): a is { info: TronInfo } => 'info' in a && 'id' in a.info && a.info.blockNumber !== undefined);
    if (found) {
      const block = await this.blockByNumber(BigInt(found.info.blockNumber!));
      if (!block) throw new ChainUnavailableError(this.network, 'node_behind', `the block of ${txid} is not served yet`);
      return this.receiptOf(found.info, block);
    }
    const failed = answers.find((a): a is { error: Error } => 'error' in a);
    if (failed) throw failed.error;
    return null;
  }

  async finalizedTime(): Promise<number> {
    const head = await this.head();
    const number = head.number > this.finalityDepth ? head.number - this.finalityDepth : 0n;
    const block = await this.post<{ block_header?: { raw_data?: { timestamp?: unknown } } }>('wallet/getblockbynum', { num: Number(number) });
    const time = block.block_header?.raw_data?.timestamp;
    if (typeof time !== 'number' || !Number.isSafeInteger(time)) throw new ChainUnavailableError(this.network, 'bad_response', `getblockbynum ${number}: no timestamp`);
    return time;
  }

  private chainParameters(): Promise<ChainParameters> {
    if (this.parameters && Date.now() - this.parameters.at < PARAMETERS_TTL_MS) return this.parameters.value;
    const value = this.post<{ chainParameter?: { key: string; value?: number }[] }>('wallet/getchainparameters', {}).then((out) => {
      const get = (key: string) => {
        const v = out.chainParameter?.find((p) => p.key === key)?.value ?? 0;
        if (!Number.isSafeInteger(v) || v < 0) throw new ChainUnavailableError(this.network, 'bad_response', `getchainparameters: ${key} is not a count of sun`);
        return BigInt(v);
      };
      return {
        energyFee: get('getEnergyFee'),
        bandwidthFee: get('getTransactionFee'),
        createAccountFee: get('getCreateAccountFee'),
        createNewAccountFee: get('getCreateNewAccountFeeInSystemContract'),
      };
    });
    this.parameters = { at: Date.now(), value };
    value.catch(() => {
      this.parameters = null;
    });
    return value;
  }

  private hexAddress(address: string): string {
    const bytes = evmBytesFromTronAddress(address);
    if (!bytes) throw new Error(`${this.network}: ${address} is not a TRON address`);
    return `41${Buffer.from(bytes).toString('hex')}`;
  }

  private contractHex(asset: string): string {
    const contract = [...this.tokenByContract].find(([, a]) => a === asset)?.[0];
    if (!contract) throw new Error(`${this.network}: no contract is configured for ${asset}`);
    return `41${contract}`;
  }

  /** The call data of a TRC-20 transfer of `amount` to `to`. */
  private transferData(to: string, amount: bigint): string {
    return TRANSFER_SELECTOR + word(this.hexAddress(to).slice(2)) + word(amount.toString(16));
  }

  async burnEstimate(call: TransferCall): Promise<TronBurn> {
    const params = await this.chainParameters();
    if (call.asset === 'TRX') {
      // Sending TRX to an account that does not exist yet creates it, at the sender's cost.
      const account = await this.post<{ address?: unknown }>('wallet/getaccount', { address: this.hexAddress(call.to) });
      const activation = account.address === undefined ? params.createNewAccountFee + params.createAccountFee : 0n;
      return { energy: 0n, bandwidth: TRANSFER_BYTES * params.bandwidthFee, activation };
    }
    const parameter = this.transferData(call.to, call.amount).slice(TRANSFER_SELECTOR.length);
    const out = await this.post<{ energy_used?: unknown; constant_result?: unknown[]; result?: { result?: boolean; code?: string; message?: string }; transaction?: { ret?: { ret?: string }[] } }>('wallet/triggerconstantcontract', {
      owner_address: this.hexAddress(call.from),
      contract_address: this.contractHex(call.asset),
      function_selector: 'transfer(address,uint256)',
      parameter,
    });
    const energy = out.energy_used;
    // A revert: the node says CONTRACT_EXE_ERROR, or a successful call whose dry-run transaction FAILED.
    if (out.result?.code === 'CONTRACT_EXE_ERROR' || out.transaction?.ret?.[0]?.ret === 'FAILED') {
      const reason = revertReason(out.constant_result?.[0]);
      throw new TransferRefused(
        this.network,
        `${this.network}: the ${call.asset} contract refuses the transfer from ${call.from} to ${call.to} (a blocked address or a paused token): ${refusalText(out.result?.message).slice(0, 200)}${reason ? `: ${reason.slice(0, 200)}` : ''}`,
      );
    }
    if (out.result?.result !== true || typeof energy !== 'number' || !Number.isSafeInteger(energy) || energy < 0) {
      throw new ChainUnavailableError(this.network, 'bad_response', `triggerconstantcontract: no energy estimate (${refusalText(out.result?.message).slice(0, 200)})`);
    }
    return { energy: BigInt(energy) * params.energyFee, bandwidth: CONTRACT_CALL_BYTES * params.bandwidthFee, activation: 0n };
  }

  async sign(tx: UnsignedTransfer, sign: SignDigest): Promise<SignedTransaction> {
    const owner = this.hexAddress(tx.from);
    let built: { txID?: unknown; raw_data?: unknown; raw_data_hex?: unknown };
    let expect: (value: Record<string, unknown>, raw: Record<string, unknown>) => boolean;
    let type: 'TransferContract' | 'TriggerSmartContract';
    if (tx.asset === 'TRX') {
      if (tx.amount <= 0n || tx.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${this.network}: a TRX amount of ${tx.amount} sun cannot be sent exactly`);
      const to = this.hexAddress(tx.to);
      type = 'TransferContract';
      built = await this.post('wallet/createtransaction', { owner_address: owner, to_address: to, amount: tx.amount });
      expect = (v) => lower(v.to_address) === to && exactInt(v.amount) === tx.amount;
    } else {
      if (tx.feeLimit === null || tx.feeLimit <= 0n || tx.feeLimit > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${this.network}: a contract call needs a fee_limit`);
      const contract = this.contractHex(tx.asset);
      const data = this.transferData(tx.to, tx.amount);
      type = 'TriggerSmartContract';
      const out = await this.post<{ result?: { result?: boolean; message?: string }; transaction?: typeof built }>('wallet/triggersmartcontract', {
        owner_address: owner,
        contract_address: contract,
        function_selector: 'transfer(address,uint256)',
        parameter: data.slice(TRANSFER_SELECTOR.length),
        fee_limit: tx.feeLimit,
        call_value: 0,
      });
      if (out.result?.result !== true || !out.transaction) {
        throw new ChainUnavailableError(this.network, 'bad_response', `triggersmartcontract: ${refusalText(out.result?.message).slice(0, 200) || 'no transaction'}`);
      }
      built = out.transaction;
      expect = (v, raw) =>
        lower(v.contract_address) === contract &&
        lower(v.data) === data &&
        !v.call_value &&
        !v.call_token_value &&
        !v.token_id &&
        exactInt(raw.fee_limit) === tx.feeLimit;
    }
    const { txID, rawData, rawHex, expiration } = this.verified(built, type, owner, expect);
    const signature = signatureHex(await sign(Uint8Array.from(Buffer.from(txID, 'hex'))));
    const raw = JSON.stringify({ visible: false, txID, raw_data: rawData, raw_data_hex: rawHex, signature: [signature] });
    return { txid: txID, raw, expiresAt: expiration };
  }

  /** What the node built, checked against what was asked before anything is signed. */
  private verified(
    built: { txID?: unknown; raw_data?: unknown; raw_data_hex?: unknown },
    type: 'TransferContract' | 'TriggerSmartContract',
    owner: string,
    expect: (value: Record<string, unknown>, raw: Record<string, unknown>) => boolean,
  ): { txID: string; rawData: Record<string, unknown>; rawHex: string; expiration: number } {
    const refuse = (why: string): never => {
      throw new ChainUnavailableError(this.network, 'bad_response', `the node built a transaction that ${why}: not signed`);
    };
    const rawHex = typeof built.raw_data_hex === 'string' && /^([0-9a-fA-F]{2})+$/.test(built.raw_data_hex) ? built.raw_data_hex.toLowerCase() : refuse('has no raw_data_hex');
    const rawData = built.raw_data && typeof built.raw_data === 'object' ? (built.raw_data as Record<string, unknown>) : refuse('has no raw_data');
    const txID = sha256Hex(rawHex);
    if (typeof built.txID !== 'string' || built.txID.toLowerCase() !== txID) refuse('has a txID other than the sha256 of its bytes');
    let decoded: Record<string, unknown> & { contract?: unknown[] };
    let jsonHex: string;
    try {
      decoded = deserializeTransaction(type, rawHex) as typeof decoded;
      // Broadcast as JSON: the JSON must encode to the very bytes checked here and signed.
      jsonHex = txPbToRawDataHex(txJsonToPb({ raw_data: rawData, visible: false })).toLowerCase();
    } catch (err) {
      return refuse(`cannot be decoded (${(err as Error).message})`);
    }
    if (jsonHex !== rawHex) refuse('says something else in its JSON than in its bytes');
    // tronweb's decoder shows the first contract only: the count comes from the bytes.
    let count: number;
    try {
      count = RawTransaction.deserializeBinary(Buffer.from(rawHex, 'hex')).getContractList().length;
    } catch (err) {
      return refuse(`cannot be decoded (${(err as Error).message})`);
    }
    const contract = (decoded.contract ?? [])[0] as { parameter?: { value?: Record<string, unknown>; type_url?: string }; Permission_id?: number } | undefined;
    const value = contract?.parameter?.value;
    const shown = Array.isArray(rawData.contract) ? rawData.contract.length : 0;
    if (count !== 1 || shown !== 1 || !value || contract.Permission_id) refuse('is not a single contract of the owner');
    if (contract!.parameter!.type_url !== `type.googleapis.com/protocol.${type}`) refuse('names another contract type');
    if (lower(value!.owner_address) !== owner) refuse('has another owner');
    if (decoded.data || decoded.scripts) refuse('carries a memo or a script');
    if (!expect(value!, decoded)) refuse('differs from the transfer asked for');
    const expiration = decoded.expiration;
    if (typeof expiration !== 'number' || !Number.isSafeInteger(expiration) || expiration > Date.now() + MAX_EXPIRATION_MS) refuse('expires too late');
    return { txID, rawData, rawHex, expiration: expiration as number };
  }

  async broadcast(raw: string): Promise<'accepted' | 'known'> {
    const out = await this.post<{ result?: boolean; code?: string; message?: string }>('wallet/broadcasttransaction', JSON.parse(raw) as Record<string, unknown>);
    if (out.result === true) return 'accepted';
    const code = out.code ?? 'OTHER_ERROR';
    const text = `${this.network}: ${code} ${refusalText(out.message).slice(0, 300)}`.trim();
    if (code === 'DUP_TRANSACTION_ERROR') return 'known';
    if (BUSY_CODES.has(code)) throw new ChainUnavailableError(this.network, 'server_error', text);
    if (DEAD_CODES.has(code)) throw new BroadcastRejected('expired', text);
    // java-tron spells it BANDWITH_ERROR (api.proto's response_code); the corrected spelling is taken too.
    if (code === 'BANDWITH_ERROR' || code === 'BANDWIDTH_ERROR' || /balance is not sufficient|insufficient/i.test(text)) throw new BroadcastRejected('insufficient_funds', text);
    throw new BroadcastRejected('invalid', text);
  }

  async sentReceipt(txid: string): Promise<SentReceipt | null> {
    const found = await this.included(txid);
    return found ? this.receiptOf(found.info, found.block) : null;
  }

  private receiptOf(info: TronInfo, block: BlockRef): SentReceipt {
    const txid = info.id;
    const failed = info.result === 'FAILED' || (info.receipt?.result !== undefined && info.receipt.result !== 'SUCCESS');
    const fee = info.fee ?? 0;
    if (!Number.isSafeInteger(fee) || fee < 0) throw new ChainUnavailableError(this.network, 'bad_response', `gettransactioninfobyid ${txid}: a fee that cannot be read exactly`);
    return { txid: info.id.toLowerCase(), status: failed ? 'reverted' : 'success', block, feePaid: BigInt(fee) };
  }
}

/** The text of a revert's Error(string) output (java-tron's constant_result), when it is one. */
function revertReason(data: unknown): string | null {
  if (typeof data !== 'string' || !/^08c379a0([0-9a-fA-F]{64}){2,}$/.test(data)) return null;
  try {
    const { args } = decodeErrorResult({ abi: [{ type: 'error', name: 'Error', inputs: [{ type: 'string', name: 'message' }] }], data: `0x${data}` });
    return typeof args[0] === 'string' ? args[0] : null;
  } catch {
    return null;
  }
}

const lower = (v: unknown): string => (typeof v === 'string' ? v.toLowerCase() : '');

/** r ‖ s ‖ v with v = 27 + recovery, as TRON writes signatures (65 bytes, hex). */
const signatureHex = (sig: DigestSignature): string => word(sig.r.toString(16)) + word(sig.s.toString(16)) + (27 + sig.recovery).toString(16);
