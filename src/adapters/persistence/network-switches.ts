// NetworkSwitches in PostgreSQL: read by every process on each use, so an
// operator's switch holds everywhere at once.
import type { MikroORM } from '@mikro-orm/postgresql';
import { NETWORKS, type Network } from '../../domain/money/networks.js';
import type { NetworkSwitches } from '../../domain/ports.js';
import { currentEntityManager } from './current-entity-manager.js';
import { NetworkSwitchEntity } from './entities/index.js';
import { executeInline } from './sql.js';

export class PgNetworkSwitches implements NetworkSwitches {
  constructor(private readonly orm: MikroORM) {}

  async overrides(): Promise<Partial<Record<Network, boolean>>> {
    const em = currentEntityManager(this.orm);
    const rows = await executeInline<{ network: string; enabled: boolean }>(em, 'select network, enabled from network_switches', [], em.getTransactionContext());
    const out: Partial<Record<Network, boolean>> = {};
    for (const r of rows) if ((NETWORKS as readonly string[]).includes(r.network)) out[r.network as Network] = r.enabled;
    return out;
  }

  async set(network: Network, enabled: boolean, at: Date): Promise<void> {
    await this.orm.em.fork().upsert(NetworkSwitchEntity, { network, enabled, updatedAt: at });
  }
}
