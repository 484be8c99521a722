// The one place networks are configured: node URL, required confirmations and
// token contracts per network (docs/operations.md#network-settings). Later
// features extend this table.
import { ASSET_SPECS, CHAIN_ASSETS, NETWORKS, baseChainOf, sideOf, type Asset, type Network } from '../../domain/money/networks.js';
import type { NetworkConfig, NetworkRegistry, NetworkSwitches } from '../../domain/ports.js';

export interface NetworkSetting {
  network: Network;
  rpcUrl: string | null;
  requiredConfirmations: number;
  contracts: Partial<Record<Asset, string>>;
  /** EVM: most blocks per eth_getLogs (a provider's own limit, once it says it, lowers it for that URL); null: the default. */
  logRange?: number | null;
}

/** Default confirmations (docs/operations.md#network-settings): mainnets by chain, testnets 6. */
export const DEFAULT_CONFIRMATIONS: Record<Network, number> = {
  ETH_MAINNET: 12,
  BSC_MAINNET: 15,
  TRON_MAINNET: 19,
  ETH_TESTNET: 6,
  BSC_TESTNET: 6,
  TRON_TESTNET: 6,
};

/** The chain ids of the EVM networks: a node that says another is refused (it would sign for another chain). */
export const EVM_CHAIN_IDS: Partial<Record<Network, number>> = {
  ETH_MAINNET: 1,
  ETH_TESTNET: 11155111, // Sepolia (and the sandbox's local chain)
  BSC_MAINNET: 56,
  BSC_TESTNET: 97,
};

/** Well-known token contracts of the mainnets; testnet contracts come from configuration or the sandbox. */
export const MAINNET_CONTRACTS: Partial<Record<Network, Partial<Record<Asset, string>>>> = {
  ETH_MAINNET: {
    USDT_ETH: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    USDC_ETH: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    EURC_ETH: '0x1aBaEA1f7C830bD89Acc67eC4af516284b1bC33c',
  },
  BSC_MAINNET: { USDT_BSC: '0x55d398326f99059fF775485246999027B3197955' },
  TRON_MAINNET: { USDT_TRON: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
};

/**
 * The token contracts of the local sandbox's testnets. The local chains
 * deploy each token from one fixed deployer (anvil's well-known account #9,
 * 0xa0Ee7A142d267C1f36714E4a8F75612F20a79720) as its first transactions, so
 * the addresses are known before any chain runs: nonce 0 on each chain holds
 * its USDT, nonces 1 and 2 on ETH hold USDC and EURC. The TRON stand-in runs
 * on the same kind of node, so its USDT is nonce 0's address with the 0x41
 * prefix. See ADR 0013. Outside the sandbox, testnet contracts come only from
 * configuration.
 */
export const SANDBOX_TESTNET_CONTRACTS: Partial<Record<Network, Partial<Record<Asset, string>>>> = {
  ETH_TESTNET: {
    USDT_ETH: '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35',
    USDC_ETH: '0xA15BB66138824a1c7167f5E85b957d04Dd34E468',
    EURC_ETH: '0xb19b36b1456E65E3A6D514D3F715f204BD59f431',
  },
  BSC_TESTNET: { USDT_BSC: '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35' },
  TRON_TESTNET: { USDT_TRON: 'TLBeMi7NQkKVvLbGLHArkb3V17TrWTuNYq' },
};

/** The sandbox deployer whose first transactions create SANDBOX_TESTNET_CONTRACTS. */
export const SANDBOX_TOKEN_DEPLOYER = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';

/**
 * The configured networks with the operator's switches applied. A network is
 * on by default when its node URL is configured, and in the local sandbox the
 * testnets are on from the start (docs/operations.md#networks); `ops chain
 * enable|disable` overrides.
 */
export class ConfiguredNetworkRegistry implements NetworkRegistry {
  constructor(
    private readonly settings: NetworkSetting[],
    private readonly sandbox: boolean,
    private readonly switches: NetworkSwitches,
  ) {}

  async get(network: Network): Promise<NetworkConfig> {
    return (await this.list()).find((n) => n.network === network)!;
  }

  async list(): Promise<NetworkConfig[]> {
    const overrides = await this.switches.overrides();
    return NETWORKS.map((network) => {
      const s = this.settings.find((x) => x.network === network);
      const base = baseChainOf(network);
      // A mainnet with no node URL is not enabled (docs/operations.md#networks), whatever the switch says.
      const configured = Boolean(s?.rpcUrl) || (this.sandbox && sideOf(network) === 'test');
      const enabled = configured && (overrides[network] ?? true);
      return {
        network,
        base,
        requiredConfirmations: s?.requiredConfirmations ?? DEFAULT_CONFIRMATIONS[network],
        configured,
        enabled,
        assets: CHAIN_ASSETS[base].map((asset) => ({
          asset,
          decimals: ASSET_SPECS[asset].apiDecimals,
          chainDecimals: ASSET_SPECS[asset].chainDecimals,
          contractAddress: ASSET_SPECS[asset].native ? null : (s?.contracts[asset] ?? null),
        })),
      };
    });
  }
}
