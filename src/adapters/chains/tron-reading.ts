// The reading side of the TRON adapter (ChainPort; docs/operations.md#deposits)
// against a full node's HTTP API (java-tron, TronGrid, or the sandbox's
// stand-in): blocks, TRC-20 deposits, receipts, balances.
// - Blocks: wallet/getnowblock, getblockbynum, getblockbyid and
//   getblockbylimitnext (up to 100 blocks a call). A block's hash is its
//   64-hex block id; its parent hash is the parent's id.
// - TRC-20 deposits: the `Transfer` logs in wallet/gettransactioninfobyblocknum
//   of each block (one call a block, several in flight), kept when the log's
//   contract is a configured token, the transaction succeeded and the
//   recipient is monitored. TRX is not an asset of the contract (section 1
//   lists USDT_TRON only), so TRX sent to a deposit address is not reported.
// - Nodes: the network's URLs through one HTTP client (tron-node.ts).
// - Identity: a transfer's `logIndex` is its position among its transaction's
//   Transfer logs of the configured tokens, as on the EVM adapter (ADR 0021).
import {
  agreedAmong,
  agreedKey,
  assertSameBlocks,
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
import { patiently } from './url-pool.js';
import { TronNode, type TronNodeOptions } from './tron-node.js';

export interface TronChainOptions extends TronNodeOptions {
  /** Token contracts of this network: asset → base58 address. */
  contracts: Partial<Record<Asset, string>>;
  /** Blocks whose transaction infos are fetched at once. */
  concurrency?: number;
  /** Blocks after which a TRON block is irreversible (solidified): 19 of the 27 super representatives. */
  finalityDepth?: number;
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

export interface TronInfo {
  id: string;
  /** Sun burnt: energy, bandwidth and account creation. */
  fee?: number;
  blockNumber?: number;
  receipt?: { result?: string };
  result?: string;
  log?: TronLog[];
}

const TOPIC = TRANSFER_TOPIC.slice(2);
export const HEX_ID = /^[0-9a-fA-F]{64}$/;

/** Whether java-tron's transaction info says the transaction failed (its contract reverted, ran out of energy...). */
export const infoFailed = (info: TronInfo): boolean => info.result === 'FAILED' || (info.receipt?.result !== undefined && info.receipt.result !== 'SUCCESS');
const hexToBytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
/** Blocks searched back from the head for one with transactions, to prove that a node keeps their infos. */
const HISTORY_PROBE_BLOCKS = 1000n;

export class TronChainReader implements ChainPort, NodeProbe {
  readonly network: Network;
  protected readonly node: TronNode;
  protected readonly tokenByContract = new Map<string, Asset>();
  private readonly concurrency: number;
  private readonly finalityDepth: bigint;

  constructor(opts: TronChainOptions) {
    this.node = new TronNode(opts);
    this.network = opts.network;
    this.concurrency = opts.concurrency ?? 10;
    this.finalityDepth = BigInt(opts.finalityDepth ?? 19);
    for (const [asset, address] of Object.entries(opts.contracts)) {
      const bytes = address ? evmBytesFromTronAddress(address) : null;
      if (bytes) this.tokenByContract.set(Buffer.from(bytes).toString('hex'), asset as Asset);
    }
  }

  /** One POST through the node's URLs. */
  protected post<T>(path: string, body: Record<string, unknown>): Promise<T> {
    return this.node.post<T>(path, body);
  }

  protected blockRef(b: TronBlock): BlockRef | null {
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
    return Promise.all(this.node.urls.map((u) => this.probeOne(u)));
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
      const head = this.blockRef(await patiently(() => this.node.postTo<TronBlock>(base, 'wallet/getnowblock', {})));
      if (!head) throw new Error('no latest block');
      check.head = head.number;
      check.reachable = true;
      const block = await this.recentBlockWithTransactions(base, head.number);
      if (block === null) {
        check.problems.push(`no block with transactions in the last ${HISTORY_PROBE_BLOCKS} to prove transaction history by`);
      } else {
        const infos = await patiently(() => this.node.postTo<unknown>(base, 'wallet/gettransactioninfobyblocknum', { num: Number(block) }));
        check.history = Array.isArray(infos) && infos.length > 0 ? 'kept' : 'not_kept';
      }
    } catch (err) {
      if (!check.reachable) check.problems.push(`not reachable: ${(err as Error).message.slice(0, 160)}`);
      else check.problems.push(`history not proved: ${(err as Error).message.slice(0, 160)}`);
    }
    if (check.history === 'not_kept') {
      const why = 'keeps no transaction history (storage.transHistory.switch is off): deposits cannot be read from this URL';
      check.problems.push(why);
      this.node.keepsNoHistory(base, why);
    }
    check.usable = check.reachable && check.history !== 'not_kept';
    return check;
  }

  /** The newest block at or below `head` that holds transactions, searched back HISTORY_PROBE_BLOCKS; null when none does. */
  private async recentBlockWithTransactions(base: string, head: bigint): Promise<bigint | null> {
    const floor = head > HISTORY_PROBE_BLOCKS ? head - HISTORY_PROBE_BLOCKS : 0n;
    for (let end = head + 1n; end > floor; end -= 100n) {
      const start = end - 100n > floor ? end - 100n : floor;
      const page = await patiently(() => this.node.postTo<{ block?: TronBlock[] }>(base, 'wallet/getblockbylimitnext', { startNum: Number(start), endNum: Number(end) }));
      const found = (page.block ?? [])
        .filter((b) => Array.isArray(b.transactions) && b.transactions.length > 0)
        .map((b) => this.blockRef(b)?.number ?? -1n)
        .reduce((m, n) => (n > m ? n : m), -1n);
      if (found >= 0n) return found;
    }
    return null;
  }

  async head(): Promise<BlockRef> {
    await this.node.heads(async (base) => this.blockRef(await this.node.postTo<TronBlock>(base, 'wallet/getnowblock', {}))?.number ?? -1n).catch(() => undefined);
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
    const pages = await this.blockPages(from, to);
    // Kept for the step's transfers() of the same range: the blocks are read once per step.
    this.lastPages = { from, to, pages };
    return pages.map((b) => b.ref);
  }

  /** The pages of the last blocks() call, reused by transfers() of that range when it is given those blocks. */
  private lastPages: { from: bigint; to: bigint; pages: { ref: BlockRef; transactions: number }[] } | null = null;

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

  async transfers(from: bigint, to: bigint, isMonitored: IsMonitored, assets?: ReadonlySet<Asset>, expected?: readonly BlockRef[]): Promise<ObservedTransfer[]> {
    if (![...this.tokenByContract.values()].some((a) => !assets || assets.has(a))) return [];
    const kept = this.lastPages;
    const reuse = kept !== null && expected !== undefined && kept.from === from && kept.to === to && kept.pages.every((p, i) => p.ref.hash === expected[i]?.hash);
    const blocks = reuse ? kept.pages : await this.blockPages(from, to);
    assertSameBlocks(blocks.map((b) => b.ref), expected);
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

  protected async included(txid: string): Promise<{ info: TronInfo; block: BlockRef } | null> {
    if (!HEX_ID.test(txid.replace(/^0x/, ''))) return null;
    const info = await this.post<TronInfo | Record<string, never>>('wallet/gettransactioninfobyid', { value: txid.replace(/^0x/, '') });
    if (!info || typeof info !== 'object' || !('id' in info) || info.blockNumber === undefined) return null;
    const block = await this.blockByNumber(BigInt(info.blockNumber));
    return block ? { info: info as TronInfo, block } : null;
  }

  /** One URL's transaction info of `txid`; null when it has none (not in a block, or an answer that is no info). */
  protected async infoOn(base: string, txid: string): Promise<TronInfo | null> {
    const info = await this.node.postTo<unknown>(base, 'wallet/gettransactioninfobyid', { value: txid.replace(/^0x/, '') });
    return info && typeof info === 'object' && 'id' in info && (info as TronInfo).blockNumber !== undefined ? (info as TronInfo) : null;
  }

  /** Every configured URL's info of `txid`: `{ info }`, or `{ error }` for a URL that could not answer. */
  protected infosOnEveryUrl(txid: string): Promise<({ info: TronInfo | null } | { error: Error })[]> {
    return Promise.all(this.node.urls.map((base) => this.infoOn(base, txid).then((info) => ({ info }), (error: Error) => ({ error }))));
  }

  /**
   * One URL's transfers of `txid` as agreedKeys; null when it has no receipt of it. `blocks` keeps the URL's
   * block ids of one call (several transactions of one block read it once).
   */
  private async transfersOn(base: string, txid: string, isMonitored: IsMonitored, blocks: Map<string, Promise<BlockRef | null>>): Promise<string[] | null> {
    const info = await this.infoOn(base, txid);
    if (!info) return null;
    const key = `${base} ${info.blockNumber}`;
    let block = blocks.get(key);
    if (!block) blocks.set(key, (block = this.node.postTo<TronBlock>(base, 'wallet/getblockbynum', { num: info.blockNumber }).then((b) => this.blockRef(b))));
    const ref = await block;
    if (!ref) return null;
    return this.tokenTransfers(info, ref, isMonitored).map((t) => agreedKey({ ...t, blockHash: t.block.hash }));
  }

  async agreedTransfers(txids: readonly string[], isMonitored: IsMonitored): Promise<Set<string>> {
    const agreed = new Set<string>();
    // Two URLs must show it when two are configured; one that cannot answer is no agreement (as on EVM).
    const need = Math.min(2, this.node.urls.length);
    const unique = [...new Set(txids)].filter((txid) => HEX_ID.test(txid.replace(/^0x/, '')));
    // As many transactions at once as the scanner reads blocks (TRON has no batches): a burst of hundreds
    // of calls would earn TronGrid's penalty, and with it no agreement at all.
    const blocks = new Map<string, Promise<BlockRef | null>>();
    const all: (string[] | null)[][] = new Array(unique.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < unique.length; i = next++) {
        all[i] = await Promise.all(this.node.urls.map((base) => this.transfersOn(base, unique[i]!, isMonitored, blocks).catch(() => null)));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, unique.length) }, worker));
    for (const answers of all) for (const k of agreedAmong(answers.filter((keys): keys is string[] => keys !== null), need)) agreed.add(k);
    return agreed;
  }

  async minedOnAnyNode(txid: string): Promise<boolean> {
    if (!HEX_ID.test(txid.replace(/^0x/, ''))) return false;
    const answers = await this.infosOnEveryUrl(txid);
    const failed = answers.find((a): a is { error: Error } => 'error' in a);
    if (failed) throw failed.error; // a URL that could not say: no proof either way
    return answers.some((a) => 'info' in a && a.info !== null && !infoFailed(a.info));
  }

  async transfersOf(txid: string, isMonitored: IsMonitored): Promise<ObservedTransfer[]> {
    const found = await this.included(txid);
    return found ? this.tokenTransfers(found.info, found.block, isMonitored) : [];
  }

  async receipt(txid: string): Promise<TransactionReceipt | null> {
    const found = await this.included(txid);
    if (!found) return null;
    const { info, block } = found;
    return { txid: info.id.toLowerCase(), status: infoFailed(info) ? 'reverted' : 'success', block };
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

  async finalizedTime(): Promise<number> {
    const head = await this.head();
    const number = head.number > this.finalityDepth ? head.number - this.finalityDepth : 0n;
    const block = await this.post<{ block_header?: { raw_data?: { timestamp?: unknown } } }>('wallet/getblockbynum', { num: Number(number) });
    const time = block.block_header?.raw_data?.timestamp;
    if (typeof time !== 'number' || !Number.isSafeInteger(time)) throw new ChainUnavailableError(this.network, 'bad_response', `getblockbynum ${number}: no timestamp`);
    return time;
  }
}
