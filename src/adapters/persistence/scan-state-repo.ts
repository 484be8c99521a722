// ScanStateRepo in PostgreSQL: `chain_cursors` holds each network's next
// block and the lease of the chain-worker scanning it (on the database's
// clock, so the workers' clocks do not matter); `chain_blocks` the hashes of
// the recent blocks read. Every write is conditional on still owning the lease
// (nobody else took it over, even if it ran out during a long step) and on
// the cursor the scanner read, so a scanner that lost its lease changes nothing.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BlockRef } from '../../domain/chains/chain-port.js';
import type { ScanState, ScanStateRepo } from '../../domain/deposits/ports.js';
import type { Network } from '../../domain/money/networks.js';
import { executeInline } from './sql.js';

export class PgScanStateRepo implements ScanStateRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[]): Promise<T[]> {
    return executeInline<T>(this.em, text, params, this.em.getTransactionContext());
  }

  async claim(network: Network, owner: string, leaseSeconds: number): Promise<ScanState | null> {
    await this.sql(`insert into chain_cursors (network, updated_at) values (?, now()) on conflict (network) do nothing`, [network]);
    const [row] = await this.sql<{ next_block: string | null }>(
      `update chain_cursors set lease_owner = ?, lease_until = now() + make_interval(secs => ?)
       where network = ? and (lease_owner is null or lease_owner = ? or lease_until < now())
       returning next_block`,
      [owner, leaseSeconds, network, owner],
    );
    if (!row) return null;
    const blocks = await this.sql<{ number: string; hash: string }>(
      `select number::text, hash from chain_blocks where network = ? order by number desc limit 512`,
      [network],
    );
    return {
      nextBlock: row.next_block === null ? null : BigInt(row.next_block),
      recent: new Map(blocks.map((b) => [BigInt(b.number), b.hash])),
    };
  }

  async advance(network: Network, owner: string, expectedNext: bigint | null, next: bigint, blocks: BlockRef[], keep: number, leaseSeconds: number): Promise<boolean> {
    const moved = await this.sql<{ network: string }>(
      // Still ours (nobody took the lease over, even if it ran out during a long step): move on and renew it for the
      // scanner's lease (SCAN_LEASE_SECONDS): another worker takes over that long after this one stops.
      `update chain_cursors set next_block = ?, updated_at = now(), lease_until = now() + make_interval(secs => ?)
       where network = ? and lease_owner = ? and next_block is not distinct from ?::bigint
       returning network`,
      [next.toString(), leaseSeconds, network, owner, expectedNext === null ? null : expectedNext.toString()],
    );
    if (moved.length === 0) return false;
    if (blocks.length > 0) {
      const params: unknown[] = [];
      const tuples = blocks.map((b) => {
        params.push(network, b.number.toString(), b.hash, b.parentHash);
        return '(?, ?, ?, ?)';
      });
      await this.sql(
        `insert into chain_blocks (network, number, hash, parent_hash) values ${tuples.join(', ')}
         on conflict (network, number) do update set hash = excluded.hash, parent_hash = excluded.parent_hash`,
        params,
      );
    }
    await this.sql(`delete from chain_blocks where network = ? and number < ?`, [network, (next - BigInt(keep)).toString()]);
    return true;
  }

  async rewind(network: Network, owner: string, next: bigint): Promise<boolean> {
    const moved = await this.sql<{ network: string }>(
      `update chain_cursors set next_block = ?, updated_at = now()
       where network = ? and lease_owner = ? returning network`,
      [next.toString(), network, owner],
    );
    if (moved.length === 0) return false;
    await this.sql(`delete from chain_blocks where network = ? and number >= ?`, [network, next.toString()]);
    return true;
  }

  async release(network: Network, owner: string): Promise<void> {
    await this.sql(`update chain_cursors set lease_owner = null, lease_until = null where network = ? and lease_owner = ?`, [network, owner]);
  }

  async tips(networks: readonly Network[]): Promise<Map<Network, bigint>> {
    if (networks.length === 0) return new Map();
    const rows = await this.sql<{ network: Network; tip: string }>(
      `select network, (next_block - 1)::text as tip from chain_cursors where network in (${networks.map(() => '?').join(', ')}) and next_block is not null`,
      [...networks],
    );
    return new Map(rows.map((r) => [r.network, BigInt(r.tip)]));
  }

  async scanning(network: Network): Promise<boolean> {
    const rows = await this.sql<{ active: boolean }>(`select lease_until > now() as active from chain_cursors where network = ?`, [network]);
    return rows[0]?.active === true;
  }
}
