// What the operator's check of the node URLs reports (issue 30, `ops chains
// check`, docs/operations.md#choosing-providers): for each URL of a network,
// whether it serves what the scanner and the sender need. The adapters probe;
// this module judges the whole network (lag against its best URL).
import type { Network } from '../money/networks.js';

export interface NodeCheck {
  network: Network;
  /** The URL as shown to the operator (origin and path, no key). */
  url: string;
  reachable: boolean;
  /** EVM: the chain id the node says, and whether it is the network's; null on TRON or when unknown. */
  chainId: number | null;
  chainIdOk: boolean | null;
  head: bigint | null;
  /** Blocks behind the best URL of the network (set by the judgement). */
  lag: number | null;
  /** EVM eth_getLogs: served over `logRange` blocks, limited to fewer, or refused; 'n/a' on TRON. */
  logs: 'served' | 'limited' | 'refused' | 'unknown' | 'n/a';
  logRange: number | null;
  /** TRON: whether the node keeps transaction history (transaction infos by block); 'n/a' on EVM. */
  history: 'kept' | 'not_kept' | 'unknown' | 'n/a';
  /** What makes the URL unusable, or worth the operator's attention (empty when fine). */
  problems: string[];
  usable: boolean;
}

/** A chain adapter that can probe its URLs. */
export interface NodeProbe {
  readonly network: Network;
  probe(): Promise<NodeCheck[]>;
}

/** Blocks behind the best URL past which a URL is reported as lagging. */
export const LAGGING_AFTER_BLOCKS = 3;

/** The checks of one network's URLs with the lag of each against the best, and lagging ones flagged. */
export function judgeNetwork(checks: NodeCheck[]): NodeCheck[] {
  const heads = checks.map((c) => c.head).filter((h): h is bigint => h !== null);
  const best = heads.reduce<bigint | null>((m, h) => (m === null || h > m ? h : m), null);
  return checks.map((c) => {
    if (c.head === null || best === null) return c;
    const lag = Number(best - c.head);
    const problems = lag > LAGGING_AFTER_BLOCKS ? [...c.problems, `${lag} blocks behind the best URL`] : c.problems;
    return { ...c, lag, problems };
  });
}
