// The chain adapters of the networks this deployment has nodes for: ETH and
// BSC networks on the EVM adapter; TRON on the TRON adapter. A network
// without a node URL is not scanned.
import type { Logger } from 'pino';
import type { ChainPort } from '../domain/chains/chain-port.js';
import { baseChainOf } from '../domain/money/networks.js';
import { EvmChainPort } from '../adapters/chains/evm-chain.js';
import type { Config } from './config.js';

export function createChainPorts(config: Config, logger: Logger): ChainPort[] {
  const ports: ChainPort[] = [];
  for (const s of config.networks) {
    if (!s.rpcUrl) continue;
    const urls = s.rpcUrl.split(',').map((u) => u.trim()).filter(Boolean);
    if (baseChainOf(s.network) === 'TRON') {
      logger.warn({ network: s.network }, 'TRON deposits are not scanned yet; the TRON adapter is not built');
      continue;
    }
    ports.push(new EvmChainPort({ network: s.network, urls, contracts: s.contracts }));
  }
  return ports;
}
