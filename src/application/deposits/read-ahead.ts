// The scanner's reads of a range of blocks (ScanNetwork), one range taken
// ahead per network: while a catching-up step writes what it read, the next
// range is already being read, so the node's time and the database's overlap.
// A read taken ahead is used only for the very range the next step asks for,
// and only if the monitored set has not grown since it was taken (a wallet
// created meanwhile must be matched on every block after its creation: the
// range is read again then). What a read returns is checked by the step as
// any read is (its blocks against the stored chain, its transfers against its
// blocks); one that failed is simply read again.
import type { BlockRef, ChainPort, ObservedTransfer } from '../../domain/chains/chain-port.js';
import type { MonitoredAddresses } from '../../domain/deposits/ports.js';
import type { Network } from '../../domain/money/networks.js';

export interface RangeRead {
  blocks: BlockRef[];
  transfers: ObservedTransfer[];
}

interface Ahead {
  from: bigint;
  to: bigint;
  /** The monitored set's size when the read began (the set only grows). */
  monitored: number;
  read: Promise<RangeRead | null>;
}

export class RangeReader {
  private readonly ahead = new Map<Network, Ahead>();

  constructor(private readonly monitored: MonitoredAddresses) {}

  /** Blocks from..to and their transfers to monitored addresses: the read taken ahead when it is still good, else a new one. */
  async read(port: ChainPort, from: bigint, to: bigint): Promise<RangeRead> {
    const network = port.network;
    await this.monitored.refresh(network);
    const taken = this.ahead.get(network);
    this.ahead.delete(network);
    if (taken && taken.from === from && taken.to === to && taken.monitored === this.monitored.size(network)) {
      const r = await taken.read;
      if (r) return r;
    }
    return this.readNow(port, from, to);
  }

  /** Starts reading from..to for the next step; an error is that step's to meet, reading again. */
  readAhead(port: ChainPort, from: bigint, to: bigint): void {
    const network = port.network;
    this.ahead.set(network, { from, to, monitored: this.monitored.size(network), read: this.readNow(port, from, to).catch(() => null) });
  }

  private async readNow(port: ChainPort, from: bigint, to: bigint): Promise<RangeRead> {
    const blocks = await port.blocks(from, to);
    // The adapter's own reads of the range must be these blocks: a second read from a sibling of the head
    // (empty) would otherwise answer "no transfers" for blocks the step stores as read.
    // Every supported asset, whatever the wallets' assets: money sent in another asset than its wallet's
    // is recorded apart (an unexpected arrival) rather than left on the address unseen.
    const transfers = await port.transfers(from, to, (key) => this.monitored.has(port.network, key), undefined, blocks);
    return { blocks, transfers };
  }
}
