// The shapes of the EVM JSON-RPC answers the adapters read, and three helpers.
import type { BlockRef } from '../../domain/chains/chain-port.js';

export interface RpcBlock {
  number: `0x${string}`;
  hash: `0x${string}`;
  parentHash: `0x${string}`;
  logsBloom?: `0x${string}`;
  baseFeePerGas?: `0x${string}`;
  /** Objects when the block is read with its transactions, their hashes when not. */
  transactions?: ({ hash: `0x${string}`; from: `0x${string}`; to: `0x${string}` | null; value: `0x${string}` } | `0x${string}`)[];
}

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: `0x${string}`;
  blockHash: string;
  transactionHash: string;
  logIndex: `0x${string}`;
}

export interface RpcReceipt {
  status: `0x${string}`;
  blockNumber: `0x${string}`;
  blockHash: string;
  transactionHash: string;
  to: string | null;
  logs: RpcLog[];
  gasUsed: `0x${string}`;
  effectiveGasPrice?: `0x${string}`;
}

export const hex = (n: bigint) => `0x${n.toString(16)}` as const;
export const blockRef = (b: RpcBlock): BlockRef => ({ number: BigInt(b.number), hash: b.hash, parentHash: b.parentHash });

/** Logs in block and log order (a log's position in its transaction is counted in this order). */
export const byBlockAndIndex = (a: RpcLog, b: RpcLog) => {
  const d = BigInt(a.blockNumber) - BigInt(b.blockNumber);
  return d !== 0n ? (d < 0n ? -1 : 1) : Number(BigInt(a.logIndex) - BigInt(b.logIndex));
};
