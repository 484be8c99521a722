// The URLs' agreement on due deposits (the EVM reading adapter's part; ADR
// 0021, docs/operations.md#deposits): a deposit is credited only when two of
// the network's URLs (one when only one is configured) show the same transfer
// in the same block.
// - Each URL is asked for the receipts of the blocks the scanner read the
//   transactions in, BY NUMBER, and they are kept only when they are of the
//   hash the scanner read: by hash, a node still serves a block it reorged
//   away, and a deposit a deep reorg took would be agreed on.
// - A URL whose chain has another block there (or that does not serve
//   eth_getBlockReceipts) is asked for the transaction's own receipt, which
//   says where that URL has it now.
// - A native transfer's value is in the transaction, not the receipt: those
//   are asked of each URL that shows a successful receipt to a monitored
//   address.
import { agreedAmong, agreedKey, type BlockRef, type IsMonitored, type ObservedTransfer } from '../../domain/chains/chain-port.js';
import type { Asset } from '../../domain/money/networks.js';
import type { EvmRpcPool } from './evm-rpc-pool.js';
import { byBlockAndIndex, hex, type RpcLog, type RpcReceipt } from './evm-rpc-types.js';

export interface AgreementReading {
  nativeAsset: Asset | null;
  pool: EvmRpcPool;
  /** The transfers to monitored addresses among a receipt's logs (in log order), placed in `block`. */
  tokenTransfers(logs: RpcLog[], block: BlockRef): ObservedTransfer[];
}

type NativeTx = { blockHash: string | null; from: string; to: string | null; value: `0x${string}` } | null;

/** The agreed keys (agreedKey) of the transfers to monitored addresses in `txids`. */
export async function agreedTransfers(
  r: AgreementReading,
  txids: readonly string[],
  isMonitored: IsMonitored,
  blockOf?: ReadonlyMap<string, { number: bigint; hash: string }>,
): Promise<Set<string>> {
  const agreed = new Set<string>();
  const unique = [...new Set(txids)];
  const inBlocks = await receiptsOfBlocks(r.pool, unique, blockOf);
  // All receipts at once: calls of one tick go out to each URL as one JSON-RPC batch.
  const all = await Promise.all(
    unique.map((txid) => r.pool.onEvery<RpcReceipt | null>('eth_getTransactionReceipt', [txid], (url) => inBlocks.get(url)?.get(txid.toLowerCase()))),
  );
  const natives = await Promise.all(
    unique.map((txid, i) =>
      Promise.all(
        all[i]!.map((a) =>
          a.value?.blockHash && a.value.status === '0x1' && r.nativeAsset && a.value.to && isMonitored(a.value.to.toLowerCase())
            ? r.pool.callOn<NativeTx>(a.url, 'eth_getTransactionByHash', [txid]).catch(() => null)
            : Promise.resolve(null),
        ),
      ),
    ),
  );
  // Two URLs must show it when two are configured: one that cannot answer is no agreement (see agreedReceipt).
  const need = Math.min(2, r.pool.urls.length);
  for (const [i, txid] of unique.entries()) {
    // Per URL that has the receipt: the transfers it shows (a failed transaction shows none).
    const shown: string[][] = [];
    for (const [j, a] of all[i]!.entries()) {
      const receipt = a.value;
      if (!receipt?.blockHash) continue;
      const block = { number: BigInt(receipt.blockNumber), hash: receipt.blockHash, parentHash: '' };
      const keys =
        receipt.status === '0x1' ? r.tokenTransfers([...receipt.logs].sort(byBlockAndIndex), block).map((t) => agreedKey({ ...t, blockHash: receipt.blockHash })) : [];
      const tx = natives[i]![j];
      if (r.nativeAsset && tx?.to && tx.blockHash === receipt.blockHash && BigInt(tx.value) > 0n) {
        keys.push(agreedKey({ txid, logIndex: null, blockHash: receipt.blockHash, asset: r.nativeAsset, from: tx.from, to: tx.to, amount: BigInt(tx.value) }));
      }
      shown.push(keys);
    }
    for (const k of agreedAmong(shown, need)) agreed.add(k);
  }
  return agreed;
}

/**
 * Per URL, the receipts of the blocks the caller read the transactions in (`blockOf`), by transaction: one
 * eth_getBlockReceipts per block and URL instead of one call per transaction, asked by number and kept only
 * when they are of the block's hash.
 */
async function receiptsOfBlocks(
  pool: EvmRpcPool,
  txids: readonly string[],
  blockOf?: ReadonlyMap<string, { number: bigint; hash: string }>,
): Promise<Map<string, Map<string, RpcReceipt>>> {
  const byUrl = new Map<string, Map<string, RpcReceipt>>();
  if (!blockOf) return byUrl;
  const blocks = new Map<string, bigint>();
  for (const t of txids) {
    const b = blockOf.get(t);
    if (b) blocks.set(b.hash, b.number);
  }
  const hashes = [...blocks.keys()];
  const answers = await Promise.all(hashes.map((h) => pool.onEvery<RpcReceipt[] | null>('eth_getBlockReceipts', [hex(blocks.get(h)!)])));
  answers.forEach((perUrl, i) => {
    for (const a of perUrl) {
      if (!Array.isArray(a.value) || a.value.length === 0 || a.value.some((rc) => rc.blockHash !== hashes[i])) continue;
      let mine = byUrl.get(a.url);
      if (!mine) byUrl.set(a.url, (mine = new Map()));
      for (const rc of a.value) mine.set(rc.transactionHash.toLowerCase(), rc);
    }
  });
  return byUrl;
}
