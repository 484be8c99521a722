// NetworkSwitches in PostgreSQL: read by every process on each use, so an
// operator's switch holds everywhere at once; a signed request uses the
// switches its admission statement read (request-snapshot.ts).
import type { MikroORM } from '@mikro-orm/postgresql';
import { NETWORKS, type Network } from '../../domain/money/networks.js';
import type { NetworkSwitches } from '../../domain/ports.js';
import { currentEntityManager } from './current-entity-manager.js';
import { NetworkSwitchEntity } from './entities/index.js';
import { requestSnapshot } from './request-snapshot.js';
import { executeInline } from './sql.js';

export class PgNetworkSwitches implements NetworkSwitches {
  constructor(private readonly orm: MikroORM) {}

  async overrides(): Promise<Partial<Record<Network, boolean>>> {
    const kept = requestSnapshot()?.switches;
    if (kept) return pick(Object.entries(kept));
    const em = currentEntityManager(this.orm);
    const rows = await executeInline<{ network: string; enabled: boolean }>(em, 'select network, enabled from network_switches', [], em.getTransactionContext());
    return pick(rows.map((r) => [r.network, r.enabled]));
  }

  async set(network: Network, enabled: boolean, at: Date): Promise<void> {
    await this.orm.em.fork().upsert(NetworkSwitchEntity, { network, enabled, updatedAt: at });
    // A request that changes a switch reads it afresh afterwards.
    const snapshot = requestSnapshot();
    if (snapshot) delete snapshot.switches;
  }
}

/** The rows of known networks (a network this build no longer knows is ignored). */
function pick(rows: [string, boolean][]): Partial<Record<Network, boolean>> {
  const out: Partial<Record<Network, boolean>> = {};
  for (const [network, enabled] of rows) if ((NETWORKS as readonly string[]).includes(network)) out[network as Network] = enabled;
  return out;
}
