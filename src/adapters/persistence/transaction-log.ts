// TransactionLog in PostgreSQL: the ids of one page of a workspace's deposits
// and withdrawals together (a UNION ALL ordered by when each started).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Network } from '../../domain/money/networks.js';
import { offsetOf, type PageRequest } from '../../domain/pagination.js';
import type { TransactionLog, TransactionRef, TransactionType } from '../../domain/withdrawals/transaction-log.js';
import { executeBound, pgArrayLiteral } from './pg-array.js';

export class PgTransactionLog implements TransactionLog {
  constructor(private readonly em: EntityManager) {}

  async page(workspaceId: string, networks: readonly Network[], type: TransactionType | undefined, page: PageRequest): Promise<{ total: number; refs: TransactionRef[] }> {
    if (networks.length === 0) return { total: 0, refs: [] };
    const nets = pgArrayLiteral(networks);
    const parts: string[] = [];
    const params: unknown[] = [];
    if (type !== 'WITHDRAWAL') {
      parts.push(`select 'DEPOSIT' as type, id, detected_at as started_at from deposits where workspace_id = ? and network = any(?::text[])`);
      params.push(workspaceId, nets);
    }
    if (type !== 'DEPOSIT') {
      parts.push(`select 'WITHDRAWAL' as type, id, requested_at as started_at from withdrawals where workspace_id = ? and network = any(?::text[])`);
      params.push(workspaceId, nets);
    }
    const feed = parts.join(' union all ');
    const refs = await executeBound<TransactionRef>(this.em, `select type, id from (${feed}) f order by started_at desc, id desc limit ? offset ?`, [
      ...params,
      page.limit,
      offsetOf(page),
    ]);
    const [count] = await executeBound<{ n: string }>(this.em, `select count(*)::text as n from (${feed}) f`, params);
    return { total: Number(count?.n ?? 0), refs };
  }
}
