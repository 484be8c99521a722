// The `chain` query filter of list endpoints: a base chain (ETH), resolved to
// the key's network, or a resolved chain (ETH_TESTNET) taken as is; a
// resolved chain of the other side simply matches nothing.
import { z } from 'zod';
import { BASE_CHAINS, NETWORKS, networkFor, type BaseChain, type Network, type NetworkSide } from '../../domain/money/networks.js';

export const chainFilter = z.enum([...BASE_CHAINS, ...NETWORKS]).optional();

export function resolveChainFilter(chain: z.infer<typeof chainFilter>, side: NetworkSide): Network | undefined {
  if (chain === undefined) return undefined;
  return (BASE_CHAINS as readonly string[]).includes(chain) ? networkFor(chain as BaseChain, side) : (chain as Network);
}
