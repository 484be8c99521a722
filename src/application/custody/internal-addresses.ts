// Which addresses are the service's own, for DESTINATION_IS_INTERNAL
// (docs/api.md#withdrawals, ADR 0024): every deposit address of any workspace,
// and the treasury, gas tank and faucet dispenser of every network, on every
// network whose addresses have the same form (an EVM key is the same address
// on ETH and BSC, mainnet and testnet, so a BSC deposit address is internal
// on ETH too). The api holds no seed: the service addresses come from the
// recorded xpub of the service branch (ADR 0026) and are kept once derived.
import { inject, injectable } from 'tsyringe';
import { SERVICE_ROLES, servicePath, type ServiceRole } from '../../domain/custody/derivation.js';
import { DomainError } from '../../domain/errors.js';
import { NETWORKS, baseChainOf, type BaseChain, type Network } from '../../domain/money/networks.js';
import type { AddressDeriver, TxContext } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

/** Chains whose addresses share one form. */
const FAMILY: Record<BaseChain, readonly BaseChain[]> = { ETH: ['ETH', 'BSC'], BSC: ['ETH', 'BSC'], TRON: ['TRON'] };

export interface ServiceAddress {
  network: Network;
  role: ServiceRole;
  address: string;
}

@injectable()
export class InternalAddresses {
  private readonly services = new Map<Network, Promise<ServiceAddress[]>>();

  constructor(@inject(TOKENS.AddressDeriver) private readonly deriver: AddressDeriver) {}

  /** The networks whose addresses have the form of `network`'s. */
  static sameForm(network: Network): Network[] {
    const family = FAMILY[baseChainOf(network)];
    return NETWORKS.filter((n) => family.includes(baseChainOf(n)));
  }

  /** The network's treasury, gas tank and faucet dispenser. SERVICE_UNAVAILABLE while the service branch's key is not recorded yet. */
  serviceAddresses(network: Network): Promise<ServiceAddress[]> {
    let found = this.services.get(network);
    if (!found) {
      found = Promise.all(
        (Object.keys(SERVICE_ROLES) as ServiceRole[]).map(async (role) => {
          const address = await this.deriver.deriveAddress(baseChainOf(network), servicePath(network, role));
          if (address === null) {
            throw new DomainError('SERVICE_UNAVAILABLE', 'The service addresses are being prepared; retry in a few seconds', { retry_after_seconds: 2 });
          }
          return { network, role, address };
        }),
      );
      this.services.set(network, found);
      found.catch(() => this.services.delete(network));
    }
    return found;
  }

  /**
   * Whether `address` (canonical on `network`'s chain) is one the service
   * derives: a deposit address of any workspace or a service address, on any
   * network of the same address form.
   */
  async isInternal(tx: TxContext, network: Network, address: string): Promise<boolean> {
    const networks = InternalAddresses.sameForm(network);
    const key = baseChainOf(network) === 'TRON' ? address : address.toLowerCase();
    for (const n of networks) {
      const service = await this.serviceAddresses(n);
      if (service.some((s) => (baseChainOf(n) === 'TRON' ? s.address : s.address.toLowerCase()) === key)) return true;
    }
    for (const n of networks) if ((await tx.wallets.byAddresses(n, [address])).length > 0) return true;
    return false;
  }
}
