// The chain adapters of the networks this deployment has nodes for: ETH and
// BSC networks on the EVM adapter; TRON networks on the TRON adapter. A network
// without a node URL is not scanned.
import type { ChainPort } from '../domain/chains/chain-port.js';
import type { BalanceReader, ChainSender } from '../domain/transfers/ports.js';
import { sideOf } from '../domain/money/networks.js';
import { baseChainOf } from '../domain/money/networks.js';
import { EvmChainPort } from '../adapters/chains/evm-chain.js';
import { TronChainPort } from '../adapters/chains/tron-chain.js';
import type { NodeObserver } from '../adapters/chains/node-observer.js';
import { EVM_CHAIN_IDS } from '../adapters/chains/network-settings.js';
import type { Config } from './config.js';

export function createChainPorts(config: Config, observer?: NodeObserver): ChainPort[] {
  const ports: ChainPort[] = [];
  for (const s of config.networks) {
    if (!s.rpcUrl) continue;
    const urls = s.rpcUrl.split(',').map((u) => u.trim()).filter(Boolean);
    ports.push(
      baseChainOf(s.network) === 'TRON'
        ? new TronChainPort({ network: s.network, urls, contracts: s.contracts, apiKey: config.tronApiKey, observer })
        : new EvmChainPort({ network: s.network, urls, contracts: s.contracts, maxLogRange: s.logRange ?? undefined, observer, chainId: EVM_CHAIN_IDS[s.network] }),
    );
  }
  return ports;
}

/** The adapters that can also send (the EVM one today; TRON's sending side comes with its sweeps). */
export const sendersOf = (ports: ChainPort[]): (ChainPort & ChainSender)[] =>
  ports.filter((p): p is ChainPort & ChainSender => typeof (p as Partial<ChainSender>).sign === 'function');

/**
 * What reads balances for the operator: the configured nodes, and outside
 * production the local sandbox's testnets of DATA_DIR/sandbox.json.
 */
export async function balanceReaders(config: Config): Promise<BalanceReader[]> {
  const ports: ChainPort[] = createChainPorts(config);
  if (!config.production) {
    // Loaded only outside production: the sandbox's tooling is not installed there.
    const { readSandboxFile } = await import('../adapters/sandbox/sandbox-file.js');
    const file = readSandboxFile(config.dataDir);
    const local = Object.entries(file?.networks ?? {}).filter(([n]) => sideOf(n as never) === 'test' && !ports.some((p) => p.network === n));
    if (local.length > 0) {
      ports.push(
        ...createChainPorts({
          ...config,
          networks: config.networks.map((s) => {
            const entry = local.find(([n]) => n === s.network)?.[1];
            // Behind the provider imitation when npm start put one there (SANDBOX_PROVIDERS), as the processes are.
            return entry ? { ...s, rpcUrl: entry.provider_url ?? entry.rpc_url } : { ...s, rpcUrl: null };
          }),
        }),
      );
    }
  }
  return ports as unknown as BalanceReader[];
}
