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
import type { BalanceReader } from '../../domain/transfers/ports.js';
import {
  ChainUnavailableError,
  type BlockRef,
  type ChainPort,
  type IsMonitored,
  type ObservedTransfer,
  type TransactionReceipt,
} from '../../domain/chains/chain-port.js';
import type { Asset, Network } from '../../domain/money/networks.js';
import { evmBytesFromTronAddress, tronAddressFromEvmBytes } from './address-codec.js';
import { TRANSFER_TOPIC } from './evm-chain.js';

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
}

interface TronBlock {
  blockID?: string;
  block_header?: { raw_data?: { number?: number; parentHash?: string } };
}

interface TronLog {
  address: string;
  topics?: string[];
  data?: string;
}

interface TronInfo {
  id: string;
  blockNumber?: number;
  receipt?: { result?: string };
  result?: string;
  log?: TronLog[];
}

const TOPIC = TRANSFER_TOPIC.slice(2);
const HEX_ID = /^[0-9a-fA-F]{64}$/;

const hexToBytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

export class TronChainPort implements ChainPort, BalanceReader {
  readonly network: Network;
  private readonly urls: string[];
  private readonly tokenByContract = new Map<string, Asset>();
  private readonly timeoutMs: number;
  private readonly retryCount: number;
  private readonly retryDelayMs: number;
  private readonly concurrency: number;
  private readonly headers: Record<string, string>;

  constructor(opts: TronChainOptions) {
    if (opts.urls.length === 0) throw new Error(`${opts.network}: no TRON node URL`);
    this.network = opts.network;
    this.urls = opts.urls.map((u) => u.replace(/\/+$/, ''));
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retryCount = opts.retryCount ?? 3;
    this.retryDelayMs = opts.retryDelayMs ?? 250;
    this.concurrency = opts.concurrency ?? 10;
    this.headers = { 'content-type': 'application/json', ...(opts.apiKey ? { 'TRON-PRO-API-KEY': opts.apiKey } : {}) };
    for (const [asset, address] of Object.entries(opts.contracts)) {
      const bytes = address ? evmBytesFromTronAddress(address) : null;
      if (bytes) this.tokenByContract.set(Buffer.from(bytes).toString('hex'), asset as Asset);
    }
  }

  /** One POST to the node's HTTP API, retried on transient failures and across the URLs. */
  private async post<T>(path: string, body: Record<string, unknown>): Promise<T> {
    let last: ChainUnavailableError | null = null;
    for (const base of this.urls) {
      for (let attempt = 0; attempt <= this.retryCount; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, this.retryDelayMs * 2 ** (attempt - 1)));
        let res: Response;
        try {
          res = await fetch(`${base}/${path}`, { method: 'POST', headers: this.headers, body: JSON.stringify(body), signal: AbortSignal.timeout(this.timeoutMs) });
        } catch (err) {
          const timeout = (err as Error).name === 'TimeoutError';
          last = new ChainUnavailableError(this.network, timeout ? 'timeout' : 'unreachable', `${path}: ${timeout ? 'the node did not answer in time' : 'no connection'} (${base})`);
          continue;
        }
        if (res.status === 429 || res.status >= 500) {
          await res.body?.cancel();
          last = new ChainUnavailableError(this.network, res.status === 429 ? 'rate_limited' : 'server_error', `${path}: HTTP ${res.status} (${base})`);
          continue;
        }
        let parsed: unknown;
        try {
          parsed = await res.json();
        } catch {
          last = new ChainUnavailableError(this.network, 'bad_response', `${path}: HTTP ${res.status}, not JSON (${base})`);
          break; // the next URL
        }
        if (!res.ok || (parsed && typeof parsed === 'object' && 'Error' in parsed)) {
          const reason = parsed && typeof parsed === 'object' && 'Error' in parsed ? String((parsed as { Error: unknown }).Error) : `HTTP ${res.status}`;
          last = new ChainUnavailableError(this.network, 'bad_response', `${path}: ${reason.slice(0, 300)} (${base})`);
          break;
        }
        return parsed as T;
      }
    }
    throw last!;
  }

  private blockRef(b: TronBlock): BlockRef | null {
    const raw = b.block_header?.raw_data;
    if (!b.blockID || !HEX_ID.test(b.blockID) || !raw) return null;
    return { number: BigInt(raw.number ?? 0), hash: b.blockID.toLowerCase(), parentHash: (raw.parentHash ?? '').toLowerCase() };
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
    const out: BlockRef[] = [];
    for (let start = from; start <= to; start += 100n) {
      const end = start + 100n <= to + 1n ? start + 100n : to + 1n;
      const page = await this.post<{ block?: TronBlock[] }>('wallet/getblockbylimitnext', { startNum: Number(start), endNum: Number(end) });
      const refs = (page.block ?? []).map((b) => this.blockRef(b)).filter((r): r is BlockRef => r !== null);
      refs.sort((a, b) => (a.number < b.number ? -1 : 1));
      for (let n = start; n < end; n++) {
        const ref = refs.find((r) => r.number === n);
        if (!ref) throw new ChainUnavailableError(this.network, 'bad_response', `the node does not have block ${n}`);
        out.push(ref);
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
    const blocks = await this.blocks(from, to);
    if (![...this.tokenByContract.values()].some((a) => !assets || assets.has(a))) return [];
    const infos: TronInfo[][] = new Array(blocks.length);
    let next = 0;
    const worker = async () => {
      while (next < blocks.length) {
        const i = next++;
        infos[i] = await this.infosOf(blocks[i]!.number);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, blocks.length) }, worker));
    // The block may have changed between the two reads: the infos must belong to it.
    const after = await this.blocks(from, to);
    after.forEach((b, i) => {
      if (b.hash !== blocks[i]!.hash) throw new Error(`chain moved: block ${b.number} changed while it was read`);
    });
    return blocks.flatMap((block, i) => infos[i]!.flatMap((info) => this.tokenTransfers(info, block, isMonitored)));
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

  // Balances (BalanceReader): the treasury status and, later, TRON sweeps.

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

}
