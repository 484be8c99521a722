// The monitored addresses of each network, held in memory by the
// chain-worker (MonitoredAddresses): a Map from the address key to its
// wallet, so matching a transfer is one hash lookup however many wallets
// exist. The first refresh loads every wallet of the network (ARCHIVED ones
// too: they stay monitored) in pages; later refreshes read the wallets created
// since the last one, with an overlap, so a wallet whose transaction committed
// after a later one started is still picked up.
import type { MikroORM } from '@mikro-orm/postgresql';
import { monitoredKey } from '../../domain/chains/chain-port.js';
import type { MonitoredAddresses, MonitoredWallet } from '../../domain/deposits/ports.js';
import { baseChainOf, type Asset, type Network } from '../../domain/money/networks.js';

/** How far back each refresh looks beyond the newest wallet it saw (longer than any wallet-creating transaction). */
const OVERLAP_MS = 5 * 60 * 1000;
const PAGE = 50_000;

interface Row {
  id: string;
  workspace_id: string;
  customer_id: string | null;
  asset: string;
  address: string;
  created_at: Date;
}

interface NetworkIndex {
  byKey: Map<string, MonitoredWallet>;
  /** The newest created_at seen; null before the first load. */
  newest: Date | null;
}

export class PgMonitoredAddresses implements MonitoredAddresses {
  private readonly indexes = new Map<Network, NetworkIndex>();

  constructor(private readonly orm: MikroORM) {}

  private index(network: Network): NetworkIndex {
    let i = this.indexes.get(network);
    if (!i) {
      i = { byKey: new Map(), newest: null };
      this.indexes.set(network, i);
    }
    return i;
  }

  async refresh(network: Network): Promise<void> {
    const idx = this.index(network);
    const conn = this.orm.em.fork().getConnection();
    const since = idx.newest ? new Date(idx.newest.getTime() - OVERLAP_MS) : new Date(0);
    let after: { at: Date; id: string } | null = null;
    for (;;) {
      const rows: Row[] = await conn.execute<Row[]>(
        `select id, workspace_id, customer_id, asset, address, created_at from wallets
         where network = ? and created_at >= ? ${after ? 'and (created_at, id) > (?, ?)' : ''}
         order by created_at, id limit ${PAGE}`,
        after ? [network, since, after.at, after.id] : [network, since],
      );
      const chain = baseChainOf(network);
      for (const r of rows) {
        idx.byKey.set(monitoredKey(chain, r.address), {
          walletId: r.id,
          workspaceId: r.workspace_id,
          customerId: r.customer_id,
          asset: r.asset as Asset,
          address: r.address,
        });
        const at = new Date(r.created_at);
        if (!idx.newest || at > idx.newest) idx.newest = at;
      }
      if (rows.length < PAGE) break;
      const last = rows[rows.length - 1]!;
      after = { at: new Date(last.created_at), id: last.id };
    }
    if (!idx.newest) idx.newest = new Date(0);
  }

  lookup(network: Network, key: string): MonitoredWallet | undefined {
    return this.indexes.get(network)?.byKey.get(key);
  }

  size(network: Network): number {
    return this.indexes.get(network)?.byKey.size ?? 0;
  }
}
