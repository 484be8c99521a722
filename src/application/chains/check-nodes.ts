// Operator use case (ops chains check, and the chain-worker at start-up;
// docs/operations.md#choosing-providers): every configured node URL probed
// for what the scanner and the sender need, judged per network against its
// best URL (issue 30).
import { inject, injectable } from 'tsyringe';
import { judgeNetwork, type NodeCheck, type NodeProbe } from '../../domain/chains/node-probe.js';
import type { Network } from '../../domain/money/networks.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class CheckNodes {
  constructor(@inject(TOKENS.NodeProbes) private readonly probes: readonly NodeProbe[]) {}

  /** The checks of every URL of every network (or of `network`), networks in configuration order. */
  async execute(network?: Network): Promise<NodeCheck[]> {
    const probes = this.probes.filter((p) => network === undefined || p.network === network);
    const results = await Promise.all(probes.map(async (p) => judgeNetwork(await p.probe())));
    return results.flat();
  }
}
