// The monitored addresses of each network, held in memory by the
// chain-worker (MonitoredAddresses): a Set of address keys, so matching a
// transfer is one hash lookup however many wallets exist, and whose an
// address is stays in the database (read only for the few that match). The
// first refresh loads every wallet of the network (ARCHIVED ones too: they
// stay monitored) in pages; later refreshes read the wallets created since
// the newest one seen, with an overlap, so a wallet whose transaction
// committed after a later one's is still picked up.
import type { MikroORM } from '@mikro-orm/postgresql';
import { monitoredKey } from '../../domain/chains/chain-port.js';
import type { MonitoredAddresses } from '../../domain/deposits/ports.js';
import { baseChainOf, type Network } from '../../domain/money/networks.js';

/** How far back each refresh looks before the newest wallet it saw (longer than any wallet-creating transaction). */
const OVERLAP_MS = 60_000;

interface NetworkIndex {
  keys: Set<string>;
  /** The newest created_at seen, as PostgreSQL prints it (microseconds kept); null before the first load. */
  newest: string | null;
}

export class PgMonitoredAddresses implements MonitoredAddresses {
  private readonly indexes = new Map<Network, NetworkIndex>();

  constructor(
    private readonly orm: MikroORM,
    /** Wallets read per query. */
    private readonly page = 50_000,
  ) {}

  private index(network: Network): NetworkIndex {
    let i = this.indexes.get(network);
    if (!i) {
      i = { keys: new Set(), newest: null };
      this.indexes.set(network, i);
    }
    return i;
  }

  async refresh(network: Network): Promise<void> {
    const idx = this.index(network);
    const conn = this.orm.em.fork().getConnection();
    const since = idx.newest ?? '-infinity';
    const chain = baseChainOf(network);
    // Timestamps travel as text: a JS Date would drop the microseconds and the pages would never end.
    let after: { at: string; address: string } | null = null;
    for (;;) {
      const rows: { address: string; at: string }[] = await conn.execute(
        `select address, created_at::text as at from wallets
         where network = ? and created_at >= ?::timestamptz - make_interval(secs => ${OVERLAP_MS / 1000})
         ${after ? 'and (created_at, address) > (?::timestamptz, ?)' : ''}
         order by created_at, address limit ${this.page}`,
        after ? [network, since, after.at, after.address] : [network, since],
      );
      for (const r of rows) {
        idx.keys.add(monitoredKey(chain, r.address));
      }
      const last = rows[rows.length - 1];
      if (last) idx.newest = last.at; // rows come in created_at order: the last is the newest so far
      if (rows.length < this.page) break;
      after = { at: last!.at, address: last!.address };
    }
  }

  has(network: Network, key: string): boolean {
    return this.indexes.get(network)?.keys.has(key) ?? false;
  }

  size(network: Network): number {
    return this.indexes.get(network)?.keys.size ?? 0;
  }
}
