// Native-coin deposits of a range of blocks (the EVM reading adapter's part):
// the transactions whose `to` is monitored, whose value is above zero and
// whose receipt succeeded.
// - Read through the blocks' receipts: eth_getBlockReceipts by each block's
//   hash gives every transaction's `to` and status, then only the candidates'
//   transactions are read for their value. A full block's transaction objects
//   cost a node far more to serve (anvil: ten times the receipts of the same
//   blocks, docs/performance.md).
// - The receipts must be the block's: one per transaction of the header, in
//   its order, of its hash. A block with fewer (or none, or null) is a backend
//   that has not imported them, a node behind, never "no deposit"; a candidate
//   transaction the node does not return is the same.
// - A URL that does not serve eth_getBlockReceipts (an older node, a provider
//   that withholds it) is read through the full blocks instead, each
//   transaction's receipt asked for its status.
import { getAddress } from 'viem';
import { ChainMovedError, ChainUnavailableError, type IsMonitored, type ObservedTransfer } from '../../domain/chains/chain-port.js';
import type { Asset, Network } from '../../domain/money/networks.js';
import { blockRef, hex, type RpcBlock, type RpcReceipt } from './evm-rpc-types.js';

type Call = <T>(method: string, params: unknown[]) => Promise<T>;
type RpcTransaction = { hash: `0x${string}`; blockHash: string | null; from: `0x${string}`; to: `0x${string}` | null; value: `0x${string}` };

export interface NativeReading {
  network: Network;
  asset: Asset;
  call: Call;
}

/** The native transfers to monitored addresses in `headers` (blocks read with their transaction hashes), in block order. */
export async function nativeTransfers(r: NativeReading, headers: readonly RpcBlock[], isMonitored: IsMonitored): Promise<ObservedTransfer[]> {
  const receipts = await Promise.all(
    headers.map((b) =>
      (b.transactions ?? []).length === 0 ? Promise.resolve([] as RpcReceipt[]) : r.call<RpcReceipt[] | null>('eth_getBlockReceipts', [b.hash]),
    ),
  ).catch((err: unknown) => {
    if (err instanceof ChainUnavailableError && err.kind === 'method_not_served') return null;
    throw err;
  });
  if (receipts === null) return fromFullBlocks(r, headers, isMonitored);
  const candidates: { b: RpcBlock; hash: string }[] = [];
  headers.forEach((b, i) => {
    const hashes = (b.transactions ?? []).map((t) => (typeof t === 'string' ? t : t.hash).toLowerCase());
    const list = receipts[i];
    if (!list || list.length !== hashes.length) {
      throw new ChainUnavailableError(r.network, 'node_behind', `block ${BigInt(b.number)} has ${hashes.length} transactions and the node gave ${list?.length ?? 'no'} receipts`);
    }
    list.forEach((rc, k) => {
      if (rc.blockHash !== b.hash || rc.transactionHash.toLowerCase() !== hashes[k]) throw new ChainMovedError(`the receipts of block ${BigInt(b.number)} are of another block`);
      if (rc.status === '0x1' && rc.to && isMonitored(rc.to.toLowerCase())) candidates.push({ b, hash: hashes[k]! });
    });
  });
  const txs = await Promise.all(candidates.map((c) => r.call<RpcTransaction | null>('eth_getTransactionByHash', [c.hash])));
  const out: ObservedTransfer[] = [];
  candidates.forEach(({ b, hash }, i) => {
    const tx = txs[i];
    if (!tx) throw new ChainUnavailableError(r.network, 'node_behind', `the node does not return ${hash} of block ${BigInt(b.number)} (yet)`);
    if (tx.blockHash !== b.hash) throw new ChainMovedError(`${hash} is in another block`);
    if (!tx.to || BigInt(tx.value) === 0n) return;
    out.push({ network: r.network, asset: r.asset, txid: hash, logIndex: null, block: blockRef(b), from: getAddress(tx.from), to: getAddress(tx.to), amount: BigInt(tx.value) });
  });
  return out;
}

/** The same from the full blocks (transaction objects) and the candidates' receipts. */
async function fromFullBlocks(r: NativeReading, headers: readonly RpcBlock[], isMonitored: IsMonitored): Promise<ObservedTransfer[]> {
  const blocks = await Promise.all(headers.map((h) => r.call<RpcBlock | null>('eth_getBlockByNumber', [hex(BigInt(h.number)), true])));
  const candidates = blocks.flatMap((b, i) => {
    if (!b) throw new ChainUnavailableError(r.network, 'node_behind', `the node does not have block ${BigInt(headers[i]!.number)} (yet)`);
    if (b.hash !== headers[i]!.hash) throw new ChainMovedError(`block ${BigInt(b.number)} changed between two reads`);
    return (b.transactions ?? [])
      .filter((tx): tx is Exclude<typeof tx, string> => typeof tx !== 'string')
      .filter((tx) => tx.to && BigInt(tx.value) > 0n && isMonitored(tx.to.toLowerCase()))
      .map((tx) => ({ b, tx }));
  });
  const receipts = await Promise.all(candidates.map(({ tx }) => r.call<RpcReceipt | null>('eth_getTransactionReceipt', [tx.hash])));
  const out: ObservedTransfer[] = [];
  candidates.forEach(({ b, tx }, i) => {
    const receipt = receipts[i];
    // The transaction is in a block read: a missing receipt is a backend that has not imported it.
    if (!receipt) throw new ChainUnavailableError(r.network, 'node_behind', `no receipt yet for ${tx.hash} of block ${BigInt(b.number)}`);
    if (receipt.blockHash !== b.hash) throw new ChainMovedError(`${tx.hash} is in another block`);
    if (receipt.status !== '0x1') return;
    out.push({ network: r.network, asset: r.asset, txid: tx.hash.toLowerCase(), logIndex: null, block: blockRef(b), from: getAddress(tx.from), to: getAddress(tx.to!), amount: BigInt(tx.value) });
  });
  return out;
}
