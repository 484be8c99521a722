// ScreeningRepo in PostgreSQL: the operator's deny list of sender addresses,
// per base chain, in the chain's canonical address form.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ScreeningRepo } from '../../domain/deposits/ports.js';
import type { BaseChain } from '../../domain/money/networks.js';

export class PgScreeningRepo implements ScreeningRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[]): Promise<T[]> {
    return this.em.getConnection().execute<T[]>(text, params, 'all', this.em.getTransactionContext());
  }

  async deny(chain: BaseChain, address: string, at: Date): Promise<boolean> {
    const rows = await this.sql<{ chain: string }>(
      `insert into screening_denylist (chain, address, created_at) values (?, ?, ?) on conflict do nothing returning chain`,
      [chain, address, at],
    );
    return rows.length > 0;
  }

  async allow(chain: BaseChain, address: string): Promise<boolean> {
    const rows = await this.sql<{ chain: string }>(`delete from screening_denylist where chain = ? and address = ? returning chain`, [chain, address]);
    return rows.length > 0;
  }

  async isDenied(chain: BaseChain, address: string): Promise<boolean> {
    const rows = await this.sql<{ chain: string }>(`select chain from screening_denylist where chain = ? and address = ?`, [chain, address]);
    return rows.length > 0;
  }
}
