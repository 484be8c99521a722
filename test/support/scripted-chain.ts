// A ChainPort whose chain the test writes block by block, for the scanner's
// edge cases that a real node makes slow to stage (reorgs deeper than the
// confirmations, a node that fails on cue). The database under it is real;
// the acceptance tests run the scanner on anvil and the TRON stand-in.
import { createHash } from 'node:crypto';
import {
  ChainUnavailableError,
  monitoredKey,
  type BlockRef,
  type ChainPort,
  type IsMonitored,
  type ObservedTransfer,
  type TransactionReceipt,
} from '../../src/domain/chains/chain-port.js';
import { baseChainOf, type Asset, type Network } from '../../src/domain/money/networks.js';

export interface ScriptedTransfer {
  txid: string;
  logIndex: number | null;
  asset: Asset;
  from: string;
  to: string;
  amount: bigint;
}

interface Block extends BlockRef {
  transfers: ScriptedTransfer[];
}

const hashOf = (s: string) => `0x${createHash('sha256').update(s).digest('hex')}`;

export class ScriptedChain implements ChainPort {
  private held: Block[] = [];
  private fork = 0;
  /** While set, every call fails like an unreachable node. */
  down = false;
  /** While set, transfersOf answers like a backend behind: no receipt, no transfers. */
  receiptsLag = false;

  constructor(readonly network: Network) {
    this.held.push({ number: 0n, hash: hashOf(`${network}:genesis`), parentHash: `0x${'0'.repeat(64)}`, transfers: [] });
  }

  /** Appends a block holding `transfers`; returns it. */
  mine(transfers: ScriptedTransfer[] = []): BlockRef {
    const parent = this.held[this.held.length - 1]!;
    const number = parent.number + 1n;
    const b: Block = { number, hash: hashOf(`${this.network}:${number}:${this.fork}:${parent.hash}`), parentHash: parent.hash, transfers };
    this.held.push(b);
    return b;
  }

  mineMany(n: number): void {
    for (let i = 0; i < n; i++) this.mine();
  }

  /** Adds a transfer to a block already mined (what a node that skipped it at first would later show). */
  addToBlock(number: bigint, transfer: ScriptedTransfer): void {
    this.held[Number(number)]!.transfers.push(transfer);
  }

  /** Drops the top `depth` blocks (a new fork starts there); returns their transfers. */
  rollback(depth: number): ScriptedTransfer[] {
    this.fork++;
    const dropped = this.held.splice(this.held.length - depth, depth);
    return dropped.flatMap((b) => b.transfers);
  }

  private check(): void {
    if (this.down) throw new ChainUnavailableError(this.network, 'unreachable', 'connect ECONNREFUSED (scripted)');
  }

  private ref(b: Block): BlockRef {
    return { number: b.number, hash: b.hash, parentHash: b.parentHash };
  }

  private observed(b: Block, t: ScriptedTransfer): ObservedTransfer {
    return { network: this.network, asset: t.asset, txid: t.txid, logIndex: t.logIndex, block: this.ref(b), from: t.from, to: t.to, amount: t.amount };
  }

  async head(): Promise<BlockRef> {
    this.check();
    return this.ref(this.held[this.held.length - 1]!);
  }

  async blockByNumber(n: bigint): Promise<BlockRef | null> {
    this.check();
    const b = this.held[Number(n)];
    return b ? this.ref(b) : null;
  }

  async blockByHash(hash: string): Promise<BlockRef | null> {
    this.check();
    const b = this.held.find((x) => x.hash === hash);
    return b ? this.ref(b) : null;
  }

  async blocks(from: bigint, to: bigint): Promise<BlockRef[]> {
    this.check();
    const out: BlockRef[] = [];
    for (let n = from; n <= to; n++) {
      const b = this.held[Number(n)];
      if (!b) throw new Error(`no block ${n}`);
      out.push(this.ref(b));
    }
    return out;
  }

  async transfers(from: bigint, to: bigint, isMonitored: IsMonitored): Promise<ObservedTransfer[]> {
    this.check();
    const chain = baseChainOf(this.network);
    return this.held
      .filter((b) => b.number >= from && b.number <= to)
      .flatMap((b) => b.transfers.filter((t) => isMonitored(monitoredKey(chain, t.to))).map((t) => this.observed(b, t)));
  }

  async transfersOf(txid: string, isMonitored: IsMonitored): Promise<ObservedTransfer[]> {
    this.check();
    if (this.receiptsLag) return [];
    const chain = baseChainOf(this.network);
    return this.held.flatMap((b) => b.transfers.filter((t) => t.txid === txid && isMonitored(monitoredKey(chain, t.to))).map((t) => this.observed(b, t)));
  }

  async receipt(txid: string): Promise<TransactionReceipt | null> {
    this.check();
    const b = this.held.find((x) => x.transfers.some((t) => t.txid === txid));
    return b ? { txid, status: 'success', block: this.ref(b) } : null;
  }
}
