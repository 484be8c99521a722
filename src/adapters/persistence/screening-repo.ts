// ScreeningRepo in PostgreSQL: the operator's deny list of sender addresses,
// per base chain, in the chain's canonical address form.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ScreeningRepo } from '../../domain/deposits/ports.js';
import type { BaseChain } from '../../domain/money/networks.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeInline } from './sql.js';

export class PgScreeningRepo implements ScreeningRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[]): Promise<T[]> {
    return executeInline<T>(this.em, text, params, this.em.getTransactionContext());
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

  async deniedAmong(chain: BaseChain, addresses: readonly string[]): Promise<Set<string>> {
    if (addresses.length === 0) return new Set();
    const rows = await this.sql<{ address: string }>(`select address from screening_denylist where chain = ? and address = any(?::text[])`, [
      chain,
      pgArrayLiteral([...new Set(addresses)]),
    ]);
    return new Set(rows.map((r) => r.address));
  }
}
