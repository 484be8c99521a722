// The scanner's read taken ahead (RangeReader): used only for the very range
// asked and only while the monitored set has not grown; otherwise, or when it
// failed, the range is read again.
import { describe, expect, it } from 'vitest';
import { RangeReader } from '../../../src/application/deposits/read-ahead.js';
import type { BlockRef, ChainPort, IsMonitored, ObservedTransfer } from '../../../src/domain/chains/chain-port.js';
import type { MonitoredAddresses } from '../../../src/domain/deposits/ports.js';

const block = (n: bigint): BlockRef => ({ number: n, hash: `0x${n.toString(16).padStart(64, '0')}`, parentHash: `0x${(n - 1n).toString(16).padStart(64, '0')}` });

/** A chain with one transfer per block, to `to${n % 3}`. */
function fakePort() {
  const calls = { transfers: 0 };
  let failNext = false;
  const port = {
    network: 'ETH_TESTNET',
    async blocks(from: bigint, to: bigint) {
      const out: BlockRef[] = [];
      for (let n = from; n <= to; n++) out.push(block(n));
      return out;
    },
    async transfers(from: bigint, to: bigint, isMonitored: IsMonitored): Promise<ObservedTransfer[]> {
      calls.transfers++;
      if (failNext) {
        failNext = false;
        throw new Error('node down');
      }
      const out: ObservedTransfer[] = [];
      for (let n = from; n <= to; n++) {
        const key = `to${n % 3n}`;
        if (isMonitored(key)) out.push({ network: 'ETH_TESTNET', asset: 'USDT_ETH', txid: `0x${n}`, logIndex: 0, block: block(n), from: 'a', to: key, amount: 1n });
      }
      return out;
    },
  } as unknown as ChainPort;
  return { port, calls, fail: () => (failNext = true) };
}

/** Monitored keys; `created` ones join at the next refresh (a wallet committed meanwhile). */
function fakeMonitored(keys: string[]) {
  const set = new Set(keys);
  const created: string[] = [];
  const monitored: MonitoredAddresses = {
    async refresh() {
      for (const k of created.splice(0)) set.add(k);
    },
    has: (_n, k) => set.has(k),
    size: () => set.size,
  };
  return { monitored, create: (k: string) => created.push(k) };
}

const txids = (r: { transfers: ObservedTransfer[] }) => r.transfers.map((t) => t.txid);

describe('RangeReader', () => {
  it('hands the next step the range it read ahead, without reading it again', async () => {
    const { port, calls } = fakePort();
    const reader = new RangeReader(fakeMonitored(['to0']).monitored);
    expect(txids(await reader.read(port, 1n, 5n))).toEqual(['0x3']);
    reader.readAhead(port, 6n, 10n);
    expect(txids(await reader.read(port, 6n, 10n))).toEqual(['0x6', '0x9']);
    expect(calls.transfers).toBe(2);
  });

  it('reads again when a wallet was created since: its transfers in that range are found', async () => {
    const { port, calls } = fakePort();
    const m = fakeMonitored(['to0']);
    const reader = new RangeReader(m.monitored);
    await reader.read(port, 1n, 5n);
    reader.readAhead(port, 6n, 10n);
    m.create('to1');
    const r = await reader.read(port, 6n, 10n);
    expect(txids(r)).toEqual(['0x6', '0x7', '0x9', '0x10']);
    expect(calls.transfers).toBe(3);
  });

  it('reads again a range other than the one read ahead, or one whose read ahead failed', async () => {
    const { port, calls, fail } = fakePort();
    const reader = new RangeReader(fakeMonitored(['to0']).monitored);
    reader.readAhead(port, 6n, 10n);
    expect(txids(await reader.read(port, 6n, 8n))).toEqual(['0x6']);
    expect(calls.transfers).toBe(2);
    fail();
    reader.readAhead(port, 9n, 12n);
    expect(txids(await reader.read(port, 9n, 12n))).toEqual(['0x9', '0x12']);
    expect(calls.transfers).toBe(4);
    // Taken once: the same range asked again is read again.
    expect(txids(await reader.read(port, 9n, 12n))).toEqual(['0x9', '0x12']);
    expect(calls.transfers).toBe(5);
  });
});
