// `ops treasury status`: per network, the treasury, gas tank and faucet
// dispenser addresses (each network has its own, ADR 0024) with their native
// and token balances read from the node. A network without a node shows its
// addresses and no balances.
import { inject, injectable } from 'tsyringe';
import { servicePath, type ServiceRole } from '../../domain/custody/derivation.js';
import { Amount, formatPlaces } from '../../domain/money/amount.js';
import { ASSET_SPECS, CHAIN_ASSETS, NATIVE_CURRENCY, NETWORKS, baseChainOf, type Network } from '../../domain/money/networks.js';
import type { SignerPort } from '../../domain/ports.js';
import type { BalanceReader } from '../../domain/transfers/ports.js';
import { TOKENS } from '../tokens.js';

export interface ServiceAccountStatus {
  address: string;
  /** By currency: the native one (ETH, BNB, TRX) and the network's tokens, decimal strings; null without a node. */
  balances: Record<string, string> | null;
}

export interface NetworkTreasuryStatus {
  network: Network;
  node: boolean;
  /** Why balances are missing (the node failed), when they are. */
  error?: string;
  treasury: ServiceAccountStatus;
  gas_tank: ServiceAccountStatus;
  faucet_dispenser: ServiceAccountStatus;
}

const ROLES: [keyof Pick<NetworkTreasuryStatus, 'treasury' | 'gas_tank' | 'faucet_dispenser'>, ServiceRole][] = [
  ['treasury', 'treasury'],
  ['gas_tank', 'gasTank'],
  ['faucet_dispenser', 'faucet'],
];

@injectable()
export class TreasuryStatus {
  constructor(@inject(TOKENS.Signer) private readonly signer: SignerPort) {}

  async execute(readers: readonly BalanceReader[], only?: Network): Promise<NetworkTreasuryStatus[]> {
    const networks = only ? [only] : [...NETWORKS];
    return Promise.all(networks.map((n) => this.network(n, readers.find((r) => r.network === n))));
  }

  private async network(network: Network, reader: BalanceReader | undefined): Promise<NetworkTreasuryStatus> {
    const chain = baseChainOf(network);
    const tokens = CHAIN_ASSETS[chain].filter((a) => !ASSET_SPECS[a].native);
    const native = NATIVE_CURRENCY[chain];
    const out = { network, node: reader !== undefined } as NetworkTreasuryStatus;
    for (const [field, role] of ROLES) {
      const address = await this.signer.deriveAddress(chain, servicePath(network, role));
      let balances: Record<string, string> | null = null;
      if (reader && out.error === undefined) {
        try {
          balances = { [native.symbol]: formatPlaces(await reader.nativeBalance(address), native.decimals) };
          for (const asset of tokens) balances[asset] = Amount.fromChainUnits(asset, await reader.tokenBalance(asset, address)).toString();
        } catch (err) {
          out.error = err instanceof Error ? err.message : String(err);
          balances = null;
        }
      }
      out[field] = { address, balances };
    }
    return out;
  }
}
