// The chain adapters of the networks this deployment has nodes for: ETH and
// BSC networks on the EVM adapter; TRON networks on the TRON adapter. A network
// without a node URL is not scanned.
import type { ChainPort } from '../domain/chains/chain-port.js';
import type { ChainSender } from '../domain/transfers/ports.js';
import { baseChainOf } from '../domain/money/networks.js';
import { EvmChainPort } from '../adapters/chains/evm-chain.js';
import { TronChainPort } from '../adapters/chains/tron-chain.js';
import type { Config } from './config.js';

export function createChainPorts(config: Config): ChainPort[] {
  const ports: ChainPort[] = [];
  for (const s of config.networks) {
    if (!s.rpcUrl) continue;
    const urls = s.rpcUrl.split(',').map((u) => u.trim()).filter(Boolean);
    ports.push(
      baseChainOf(s.network) === 'TRON'
        ? new TronChainPort({ network: s.network, urls, contracts: s.contracts, apiKey: config.tronApiKey })
        : new EvmChainPort({ network: s.network, urls, contracts: s.contracts }),
    );
  }
  return ports;
}

/** The adapters that can also send (the EVM one today; TRON's sending side comes with its sweeps). */
export const sendersOf = (ports: ChainPort[]): (ChainPort & ChainSender)[] =>
  ports.filter((p): p is ChainPort & ChainSender => typeof (p as Partial<ChainSender>).sign === 'function');
