// ops chain enable | disable --chain NETWORK (docs/operations.md#networks): new
// wallets and withdrawals only; monitoring of existing addresses never stops.
// ops chains check [--chain NETWORK] (docs/operations.md#choosing-providers):
// every node URL probed; exit 1 when one is unusable.
import { z } from 'zod';
import { CheckNodes } from '../../application/chains/check-nodes.js';
import { SetNetworkEnabled } from '../../application/chains/set-network-enabled.js';
import type { NodeCheck } from '../../domain/chains/node-probe.js';
import type { NodeProbe } from '../../domain/chains/node-probe.js';
import { TOKENS } from '../../application/tokens.js';
import { urlLabel } from '../metrics/node-metrics.js';
import { defineCommand, progressOf, type OpsCommand } from './command.js';
import { networkFlag } from './network-flag.js';

const toggle = (action: 'enable' | 'disable') =>
  defineCommand({
    path: ['chain', action],
    summary: `${action === 'enable' ? 'Enable' : 'Disable'} a network for new wallets and withdrawals (--chain ETH_TESTNET, or ETH for the network of this mode)`,
    flags: { chain: { type: 'string' } },
    input: (mode) => z.object({ chain: networkFlag(mode.side) }),
    async run(ctx, input) {
      await ctx.resolve(SetNetworkEnabled).execute(input.chain, action === 'enable');
      return { chain: input.chain, enabled: action === 'enable' };
    },
  });

export const CHAIN_COMMANDS: OpsCommand[] = [toggle('enable'), toggle('disable')];

/** One row of `ops chains check`: what the scanner and the sender need from each node URL. */
const row = (c: NodeCheck) => ({
  network: c.network,
  url: urlLabel(c.url),
  usable: c.usable,
  reachable: c.reachable,
  chain_id: c.chainId,
  chain_id_ok: c.chainIdOk,
  head: c.head === null ? null : c.head.toString(),
  lag: c.lag,
  logs: c.logs,
  log_range: c.logRange,
  history: c.history,
  problems: c.problems,
});

const checkNodes = defineCommand({
  path: ['chains', 'check'],
  readsNodes: true,
  slow: true,
  summary: 'Probe every node URL for what the scanner and the sender need: logs and their range, history, head lag, chain id [--chain NETWORK]',
  flags: { chain: { type: 'string' } },
  input: (mode) => z.object({ chain: networkFlag(mode.side).optional() }),
  async run(ctx, input) {
    // One network at a time is said done as it is (in parallel, as before): a slow or unreachable node shows which.
    const progress = progressOf(ctx);
    const networks = [...new Set(ctx.resolve<NodeProbe[]>(TOKENS.NodeProbes).map((p) => p.network))].filter((n) => input.chain === undefined || n === input.chain);
    if (networks.length > 0) progress(`chains check: probing the node URLs of ${networks.join(', ')}`);
    const perNetwork = await Promise.all(
      networks.map(async (network) => {
        const found = await ctx.resolve(CheckNodes).execute(network);
        progress(`chains check: ${network} done, ${found.filter((c) => c.usable).length} of ${found.length} URL(s) usable`);
        return found;
      }),
    );
    const checks = perNetwork.flat();
    const nodes = checks.map(row);
    return { ok: nodes.length > 0 && nodes.every((n) => n.usable), nodes };
  },
  describe(result) {
    const nodes = result.nodes as ReturnType<typeof row>[];
    if (nodes.length === 0) return 'No node URL is configured (set <NETWORK>_RPC_URL).';
    const header = ['NETWORK', 'URL', 'USABLE', 'CHAIN ID', 'HEAD', 'LAG', 'LOGS', 'RANGE', 'HISTORY', 'PROBLEMS'];
    const lines = nodes.map((n) => [
      n.network,
      n.url,
      n.usable ? 'yes' : 'NO',
      n.chain_id === null ? '-' : `${n.chain_id}${n.chain_id_ok === false ? ' (wrong)' : ''}`,
      n.head ?? '-',
      n.lag === null ? '-' : String(n.lag),
      n.logs,
      n.log_range === null ? '-' : String(n.log_range),
      n.history,
      n.problems.join('; ') || '-',
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
    return [header, ...lines].map((l) => l.map((cell, i) => (i === l.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
  },
});

CHAIN_COMMANDS.push(checkNodes);
