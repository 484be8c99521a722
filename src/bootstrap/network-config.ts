// The per-network variables of the configuration (docs/operations.md,
// configuration): <NETWORK>_RPC_URL, _CONFIRMATIONS, _<ASSET>_CONTRACT,
// _LOG_RANGE and _START_BLOCK, checked here; config.ts gathers them with the
// rest.
import { z } from 'zod';
import { ASSETS, CHAIN_ASSETS, NETWORKS, baseChainOf, type Asset, type Network } from '../domain/money/networks.js';
import { ChainAddressCodec } from '../adapters/chains/address-codec.js';
import { DEFAULT_CONFIRMATIONS, MAINNET_CONTRACTS, SANDBOX_TESTNET_CONTRACTS, type NetworkSetting } from '../adapters/chains/network-settings.js';
import { ConfigError } from './config-errors.js';

const codec = new ChainAddressCodec();

export function networkSettings(env: NodeJS.ProcessEnv, production: boolean): NetworkSetting[] {
  const confirmations = z.coerce.number().int().min(1).max(1000);
  return NETWORKS.map((network: Network) => {
    const urlVar = `${network}_RPC_URL`;
    const rpcUrl = env[urlVar] || undefined; // empty is unset (docker compose passes ${VAR:-} as "")
    // One URL, or several comma-separated (the adapter falls back from one to the next).
    const httpUrl = z.url({ protocol: /^https?$/ });
    if (rpcUrl !== undefined && !rpcUrl.split(',').every((u) => httpUrl.safeParse(u.trim()).success)) {
      throw new ConfigError(`${urlVar}: must be an http(s) URL, or several separated by commas`);
    }
    const confVar = `${network}_CONFIRMATIONS`;
    let required = DEFAULT_CONFIRMATIONS[network];
    if (env[confVar] !== undefined) {
      const parsed = confirmations.safeParse(env[confVar]);
      if (!parsed.success) throw new ConfigError(`${confVar}: must be an integer from 1 to 1000`);
      required = parsed.data;
    }
    const contracts: Partial<Record<Asset, string>> = {
      ...(MAINNET_CONTRACTS[network] ?? {}),
      ...(production ? {} : (SANDBOX_TESTNET_CONTRACTS[network] ?? {})),
    };
    for (const asset of ASSETS) {
      const name = `${network}_${asset}_CONTRACT`;
      const v = env[name];
      if (v === undefined) continue;
      if (!CHAIN_ASSETS[baseChainOf(network)].includes(asset)) throw new ConfigError(`${name}: ${asset} is not an asset of ${network}`);
      if (codec.normalize(baseChainOf(network), v) === null) {
        throw new ConfigError(`${name}: must be a contract address of ${baseChainOf(network)} (EIP-55 checksummed hex, or TRON base58)`);
      }
      contracts[asset] = v;
    }
    const rangeVar = `${network}_LOG_RANGE`;
    let logRange: number | null = null;
    if (env[rangeVar] !== undefined && env[rangeVar] !== '') {
      const parsed = z.coerce.number().int().min(1).max(100_000).safeParse(env[rangeVar]);
      if (!parsed.success || baseChainOf(network) === 'TRON') {
        throw new ConfigError(`${rangeVar}: ${baseChainOf(network) === 'TRON' ? 'TRON blocks are read 100 at a time, not by log range' : 'must be an integer from 1 to 100000 (blocks per eth_getLogs)'}`);
      }
      logRange = parsed.data;
    }
    return { network, rpcUrl: rpcUrl || null, requiredConfirmations: required, contracts, logRange };
  });
}

/** <NETWORK>_START_BLOCK: where a network's very first scan starts. */
export function startBlocks(env: NodeJS.ProcessEnv): Partial<Record<Network, bigint>> {
  const out: Partial<Record<Network, bigint>> = {};
  for (const network of NETWORKS) {
    const name = `${network}_START_BLOCK`;
    const v = env[name];
    if (v === undefined) continue;
    if (!/^\d{1,15}$/.test(v)) throw new ConfigError(`${name}: must be a block number`);
    out[network] = BigInt(v);
  }
  return out;
}
