// TransactionLog in PostgreSQL: the ids of one page of a workspace's deposits
// and withdrawals together, ordered by when each started. Each table is read
// per network on its (workspace, network, time) index, stopping after offset +
// limit rows, and the reads merged (ADR 0036); the total is the two lists'
// counters. A deposit's created_at is its detected_at (both written once, on
// insert), so its list index serves this order too.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Network } from '../../domain/money/networks.js';
import { offsetOf, type PageRequest } from '../../domain/pagination.js';
import type { TransactionLog, TransactionRef, TransactionType } from '../../domain/withdrawals/transaction-log.js';
import { countOf } from './find-page.js';
import { executeBound } from './pg-array.js';

const SOURCES = [
  { type: 'DEPOSIT', table: 'deposits', at: 'created_at' },
  { type: 'WITHDRAWAL', table: 'withdrawals', at: 'requested_at' },
] as const;

export class PgTransactionLog implements TransactionLog {
  constructor(private readonly em: EntityManager) {}

  async page(workspaceId: string, networks: readonly Network[], type: TransactionType | undefined, page: PageRequest): Promise<{ total: number; refs: TransactionRef[] }> {
    if (networks.length === 0) return { total: 0, refs: [] };
    const sources = SOURCES.filter((s) => type === undefined || s.type === type);
    const depth = offsetOf(page) + page.limit;
    const parts: string[] = [];
    const params: unknown[] = [];
    for (const s of sources) {
      for (const network of networks) {
        parts.push(`(select '${s.type}' as type, id, ${s.at} as started_at from ${s.table} where workspace_id = ? and network = ? order by ${s.at} desc, id desc limit ?)`);
        params.push(workspaceId, network, depth);
      }
    }
    const refs = await executeBound<TransactionRef>(this.em, `select type, id from (${parts.join(' union all ')}) f order by started_at desc, id desc limit ? offset ?`, [
      ...params,
      page.limit,
      offsetOf(page),
    ]);
    let total = 0;
    for (const s of sources) total += await countOf(this.em, s.table, workspaceId, { networks });
    return { total, refs };
  }
}
