// DerivationAllocator in PostgreSQL: accounts from the serial of hd_accounts
// (one global sequence), address indexes from an update of the account's row,
// whose lock serialises concurrent creates and whose rollback returns the index;
// the pool of indexes taken ahead (address_pool), claimed with SKIP LOCKED.
// An account, once its row is committed, never changes: the process keeps
// those it has read in a transaction that had written nothing yet (so the row
// is not its own insert, which may still roll back), and a wallet create asks
// the table only the first time.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Network } from '../../domain/money/networks.js';
import type { DerivationAllocator } from '../../domain/ports.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeInline } from './sql.js';

export class PgDerivationAllocator implements DerivationAllocator {
  constructor(
    private readonly em: EntityManager,
    /** Committed accounts by `workspace:network`, shared by the process's units of work. */
    private readonly known: Map<string, number> = new Map(),
  ) {}

  private sql<T extends object>(text: string, params: unknown[]): Promise<T[]> {
    return executeInline<T>(this.em, text, params, this.em.getTransactionContext());
  }

  async account(workspaceId: string, network: Network): Promise<number> {
    const key = `${workspaceId}:${network}`;
    const cached = this.known.get(key);
    if (cached !== undefined) return cached;
    // Look first: an insert that meets the conflict would still draw (and
    // waste) a number from the account sequence on every wallet created.
    const found = await this.sql<{ account: number; committed: boolean }>(
      `select account, pg_current_xact_id_if_assigned() is null as committed from hd_accounts where workspace_id = ? and network = ?`,
      [workspaceId, network],
    );
    if (found[0]) {
      if (found[0].committed) this.known.set(key, found[0].account);
      return found[0].account;
    }
    const inserted = await this.sql<{ account: number }>(
      `insert into hd_accounts (workspace_id, network, next_index) values (?, ?, 0)
       on conflict on constraint hd_accounts_workspace_network_unique do nothing returning account`,
      [workspaceId, network],
    );
    if (inserted[0]) return inserted[0].account;
    const raced = await this.sql<{ account: number }>(
      `select account from hd_accounts where workspace_id = ? and network = ?`,
      [workspaceId, network],
    );
    return raced[0]!.account;
  }

  async nextIndex(account: number): Promise<number> {
    return this.nextIndexes(account, 1);
  }

  async nextIndexes(account: number, count: number): Promise<number> {
    const rows = await this.sql<{ index: number }>(
      `update hd_accounts set next_index = next_index + ? where account = ? returning next_index - ? as index`,
      [count, account, count],
    );
    if (!rows[0]) {
      // Only a database restored behind a running process loses a committed account: nothing kept is trusted.
      this.known.clear();
      throw new Error(`derivation account ${account} has no row (a database restored while this process ran?): the accounts kept are forgotten`);
    }
    return rows[0].index;
  }

  async claimPooled(account: number): Promise<{ index: number; address: string; left: number } | null> {
    // The count is of the statement's snapshot, which still holds the claimed row.
    const rows = await this.sql<{ index: number; address: string; left: string }>(
      `with claimed as (
         delete from address_pool where (account, index) = (
           select account, index from address_pool where account = ? order by index limit 1 for update skip locked)
         returning index, address)
       select index, address, (select count(*) from address_pool where account = ?) - 1 as left from claimed`,
      [account, account],
    );
    const row = rows[0];
    return row ? { index: row.index, address: row.address, left: Number(row.left) } : null;
  }

  async tryLockPool(account: number): Promise<boolean> {
    const rows = await this.sql<{ locked: boolean }>(`select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked`, [`address-pool:${account}`]);
    return rows[0]!.locked;
  }

  async pooled(account: number): Promise<number> {
    const rows = await this.sql<{ n: string }>(`select count(*)::text as n from address_pool where account = ?`, [account]);
    return Number(rows[0]!.n);
  }

  async pool(account: number, entries: readonly { index: number; address: string }[]): Promise<void> {
    if (entries.length === 0) return;
    await this.sql(
      `insert into address_pool (account, index, address) select ?, i, a from unnest(?::int[], ?::text[]) as e(i, a)`,
      [account, pgArrayLiteral(entries.map((e) => e.index)), pgArrayLiteral(entries.map((e) => e.address))],
    );
  }
}
