// DerivationAllocator in PostgreSQL: accounts from the serial of hd_accounts
// (one global sequence), address indexes from an update of the account's row,
// whose lock serialises concurrent creates and whose rollback returns the index.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Network } from '../../domain/money/networks.js';
import type { DerivationAllocator } from '../../domain/ports.js';

export class PgDerivationAllocator implements DerivationAllocator {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[]): Promise<T[]> {
    return this.em.getConnection().execute<T[]>(text, params, 'all', this.em.getTransactionContext());
  }

  async account(workspaceId: string, network: Network): Promise<number> {
    // Look first: an insert that meets the conflict would still draw (and
    // waste) a number from the account sequence on every wallet created.
    const found = await this.sql<{ account: number }>(
      `select account from hd_accounts where workspace_id = ? and network = ?`,
      [workspaceId, network],
    );
    if (found[0]) return found[0].account;
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
    const rows = await this.sql<{ index: number }>(
      `update hd_accounts set next_index = next_index + 1 where account = ? returning next_index - 1 as index`,
      [account],
    );
    return rows[0]!.index;
  }
}
