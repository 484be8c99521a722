// WalletRepo over MikroORM, bound to the entity manager of one transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Network } from '../../domain/money/networks.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { WalletRepo } from '../../domain/ports.js';
import type { Wallet, WalletFilter } from '../../domain/wallets/wallet.js';
import { WalletEntity } from './entities/index.js';
import { pageOfList } from './find-page.js';
import { executeInline } from './sql.js';

export class MikroWalletRepo implements WalletRepo {
  constructor(private readonly em: EntityManager) {}

  async add(wallet: Wallet): Promise<void> {
    await this.em.insert(WalletEntity, wallet);
  }

  get(workspaceId: string, networks: readonly Network[], id: string): Promise<Wallet | null> {
    return this.em.findOne(WalletEntity, { id, workspaceId, network: { $in: [...networks] } });
  }

  async list(workspaceId: string, networks: readonly Network[], filter: WalletFilter, page: PageRequest): Promise<Page<Wallet>> {
    const nets = filter.network ? (networks.includes(filter.network) ? [filter.network] : []) : [...networks];
    return pageOfList(this.em, WalletEntity, {
      table: 'wallets',
      list: 'wallets',
      orderBy: 'created_at',
      workspaceId,
      networks: nets,
      status: filter.status,
      notStatus: 'ARCHIVED',
      asset: filter.asset,
      narrow: { customer_id: filter.customerId },
    }, page);
  }

  byAddresses(network: Network, addresses: readonly string[]): Promise<Wallet[]> {
    if (addresses.length === 0) return Promise.resolve([]);
    return this.em.find(WalletEntity, { network, address: { $in: [...new Set(addresses)] } });
  }

  async existsAt(candidates: readonly { networks: readonly Network[]; address: string }[]): Promise<boolean> {
    const used = candidates.filter((c) => c.networks.length > 0);
    if (used.length === 0) return false;
    const rows = await executeInline<{ found: number }>(
      this.em,
      `select 1 as found from wallets where ${used.map(() => '(address = ? and network in (?))').join(' or ')} limit 1`,
      used.flatMap((c) => [c.address, [...c.networks]]),
      this.em.getTransactionContext(),
    );
    return rows.length > 0;
  }

  async reactivate(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.em.nativeUpdate(WalletEntity, { id: { $in: [...new Set(ids)] }, status: 'SWEPT' }, { status: 'ACTIVE' });
  }

  async setStatus(id: string, status: Wallet['status']): Promise<void> {
    await this.em.nativeUpdate(WalletEntity, { id }, { status });
  }
}
