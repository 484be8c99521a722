// Which addresses are the service's own, for DESTINATION_IS_INTERNAL
// (docs/api.md#withdrawals, ADR 0024): every deposit address of any workspace,
// and the treasury, gas tank and faucet dispenser of every network, on every
// network and in every chain's spelling (a key is the same 20-byte account on
// ETH, BSC and TRON, so a BSC deposit address is internal on ETH, and its
// TRON spelling on TRON). The api holds no seed: the service addresses come from the
// recorded xpub of the service branch (ADR 0026) and are kept once derived.
import { inject, injectable } from 'tsyringe';
import { monitoredKey } from '../../domain/chains/chain-port.js';
import { servicePath, serviceRolesOf, type ServiceRole } from '../../domain/custody/derivation.js';
import { DomainError } from '../../domain/errors.js';
import { NETWORKS, baseChainOf, networkFor, type BaseChain, type Network } from '../../domain/money/networks.js';
import type { TxContext } from '../../domain/ports.js';
import type { AddressCodec, AddressDeriver } from '../../domain/custody/ports.js';
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
  private accounts: Promise<Set<string>> | null = null;

  constructor(
    @inject(TOKENS.AddressDeriver) private readonly deriver: AddressDeriver,
    @inject(TOKENS.AddressCodec) private readonly codec: AddressCodec,
  ) {}

  /** The networks whose addresses have the form of `network`'s. */
  static sameForm(network: Network): Network[] {
    const family = FAMILY[baseChainOf(network)];
    return NETWORKS.filter((n) => family.includes(baseChainOf(n)));
  }

  /** One of the network's service addresses. */
  async serviceAddress(network: Network, role: ServiceRole): Promise<string> {
    return (await this.serviceAddresses(network)).find((a) => a.role === role)!.address;
  }

  /** The network's treasury address (where sweeps end and payouts leave from). */
  treasury(network: Network): Promise<string> {
    return this.serviceAddress(network, 'treasury');
  }

  /**
   * Which of the network's service addresses a sender is, or null: what the gas tank sends a deposit
   * address is a top-up for its gas, and what any of them sends (the faucet's drips too) is never an
   * arrival of money from outside.
   */
  async senderRoles(network: Network): Promise<(address: string) => ServiceRole | null> {
    const chain = baseChainOf(network);
    const roles = new Map((await this.serviceAddresses(network)).map((a) => [monitoredKey(chain, a.address), a.role]));
    return (address) => roles.get(monitoredKey(chain, address)) ?? null;
  }

  /** The network's treasury, gas tank and faucet dispenser (and TRON's energy account). SERVICE_UNAVAILABLE while the service branch's key is not recorded yet. */
  serviceAddresses(network: Network): Promise<ServiceAddress[]> {
    let found = this.services.get(network);
    if (!found) {
      // One after another: the deriver may read the recorded keys on the caller's transaction, one query at a time.
      found = (async () => {
        const out: ServiceAddress[] = [];
        for (const role of serviceRolesOf(network)) {
          const address = await this.deriver.deriveAddress(baseChainOf(network), servicePath(network, role));
          if (address === null) {
            throw new DomainError('SERVICE_UNAVAILABLE', 'The service addresses are being prepared; retry in a few seconds', { retry_after_seconds: 2 });
          }
          out.push({ network, role, address });
        }
        return out;
      })();
      this.services.set(network, found);
      found.catch(() => this.services.delete(network));
    }
    return found;
  }

  /** The account ids of every network's service addresses, derived once. */
  private serviceAccounts(): Promise<Set<string>> {
    this.accounts ??= (async () => {
      const ids = new Set<string>();
      for (const n of NETWORKS) for (const s of await this.serviceAddresses(n)) ids.add(this.codec.accountId(baseChainOf(n), s.address)!);
      return ids;
    })();
    const found = this.accounts;
    found.catch(() => {
      if (this.accounts === found) this.accounts = null;
    });
    return found;
  }

  /**
   * Whether `address` (canonical on `network`'s chain) belongs to a key the
   * service derives: a deposit address of any workspace or a service
   * address, on any network, in any chain's spelling (one key is the same
   * 20-byte account on ETH, BSC and TRON, so the TRON spelling of an ETH
   * deposit address is the service's too, and nothing watches it there).
   */
  async isInternal(tx: TxContext, network: Network, address: string): Promise<boolean> {
    const id = this.codec.accountId(baseChainOf(network), address);
    if (id === null) return false;
    if ((await this.serviceAccounts()).has(id)) return true;
    return tx.wallets.existsAt(
      (['ETH', 'TRON'] as const).map((chain) => ({ networks: InternalAddresses.sameForm(networkFor(chain, 'test')), address: this.codec.fromAccountId(chain, id) })),
    );
  }
}
