// How a person names a network on the command line, for every ops command and
// the sandbox CLI: the network itself (ETH_TESTNET) or the base chain that API
// requests use (ETH), which means its network on the side the tool runs on
// (the testnet outside production, the mainnet in production). Any case.
import { z } from 'zod';
import { BASE_CHAINS, NETWORKS, networkFor, sideOf, type BaseChain, type Network, type NetworkSide } from '../../domain/money/networks.js';

const NET_OF_SIDE: Record<NetworkSide, string> = { test: 'testnet', live: 'mainnet' };

/** The network `value` names, or null. A bare chain is its network on `side`. */
export function parseNetwork(value: string, side: NetworkSide): Network | null {
  const upper = value.toUpperCase();
  if ((NETWORKS as readonly string[]).includes(upper)) return upper as Network;
  if ((BASE_CHAINS as readonly string[]).includes(upper)) return networkFor(upper as BaseChain, side);
  return null;
}

/** The accepted spellings, for help and error messages. */
export function networkSpellings(side: NetworkSide, only?: NetworkSide): string {
  const networks = only ? NETWORKS.filter((n) => sideOf(n) === only) : NETWORKS;
  return `${BASE_CHAINS.join(', ')} (the ${NET_OF_SIDE[side]} here) or a network: ${networks.join(', ')}; any case`;
}

/**
 * The zod schema of a --chain flag: a string in, a Network out. `only` refuses
 * the networks of the other side (the sandbox has testnets only).
 */
export function networkFlag(side: NetworkSide, only?: NetworkSide) {
  const spellings = networkSpellings(side, only);
  return z
    .string()
    .transform((value, ctx): Network => {
      const network = parseNetwork(value, side);
      if (network !== null && (only === undefined || sideOf(network) === only)) return network;
      const why = network === null ? `unknown network "${value}"` : `${network} is not a ${NET_OF_SIDE[only!]}`;
      ctx.issues.push({ code: 'custom', input: value, message: `${why}: give ${spellings}` });
      return z.NEVER;
    })
    .describe(spellings);
}
