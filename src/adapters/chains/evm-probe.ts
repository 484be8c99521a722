// One EVM node URL asked what the scanner and the sender need (ops chains
// check, and the chain-worker at start-up): its chain id (a node of another
// chain is taken out of the pool), its head, and eth_getLogs of the token
// contracts over the log range (served, limited, or refused as BSC's public
// endpoints do).
import { ChainUnavailableError } from '../../domain/chains/chain-port.js';
import type { NodeCheck } from '../../domain/chains/node-probe.js';
import type { Network } from '../../domain/money/networks.js';
import { RangeTooLargeError, type EvmRpcPool } from './evm-rpc-pool.js';
import { hex } from './evm-rpc-types.js';
import { patiently } from './url-pool.js';

export interface ProbeTarget {
  network: Network;
  pool: EvmRpcPool;
  expectedChainId: number | undefined;
  /** The watched token contracts' Transfer filter; null when none is configured (logs: n/a). */
  logFilter: { address: string[]; topics: string[] } | null;
}

export async function probeEvmUrl(url: string, of: ProbeTarget): Promise<NodeCheck> {
  const check: NodeCheck = {
    network: of.network,
    url,
    reachable: false,
    chainId: null,
    chainIdOk: null,
    head: null,
    lag: null,
    logs: of.logFilter === null ? 'n/a' : 'unknown',
    logRange: null,
    history: 'n/a',
    problems: [],
    usable: false,
  };
  try {
    check.chainId = Number(BigInt(await patiently(() => of.pool.callOn<string>(url, 'eth_chainId', []))));
    check.head = BigInt(await patiently(() => of.pool.callOn<string>(url, 'eth_blockNumber', [])));
    check.reachable = true;
  } catch (err) {
    check.problems.push(`not reachable: ${(err as Error).message.slice(0, 160)}`);
    return check;
  }
  if (of.expectedChainId !== undefined) {
    check.chainIdOk = check.chainId === of.expectedChainId;
    if (!check.chainIdOk) {
      const why = `chain id ${check.chainId}, not ${of.network}'s ${of.expectedChainId}`;
      check.problems.push(why);
      of.pool.exclude(url, 'wrong_chain', why);
    }
  }
  if (of.logFilter !== null) {
    const range = BigInt(of.pool.logRange());
    const from = check.head - range + 1n > 0n ? check.head - range + 1n : 0n;
    try {
      const head = check.head;
      await patiently(() => of.pool.callOn(url, 'eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(head), ...of.logFilter }]));
      check.logs = 'served';
      check.logRange = Number(check.head - from + 1n);
    } catch (err) {
      if (err instanceof RangeTooLargeError) {
        check.logs = 'limited';
        check.logRange = err.limit ?? null;
        check.problems.push(err.limit !== undefined ? `eth_getLogs limited to ${err.limit} blocks` : `eth_getLogs refused over ${range} blocks (ranges are halved until taken)`);
      } else if (err instanceof ChainUnavailableError && err.kind === 'method_not_served') {
        check.logs = 'refused';
        check.problems.push('eth_getLogs refused: deposits cannot be read from this URL');
      } else {
        check.problems.push(`eth_getLogs failed: ${(err as Error).message.slice(0, 160)}`);
      }
    }
  }
  check.usable = check.reachable && check.chainIdOk !== false && check.logs !== 'refused' && check.logs !== 'unknown';
  return check;
}
