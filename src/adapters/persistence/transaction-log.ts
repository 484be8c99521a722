// TransactionLog in PostgreSQL: the ids of one page of a workspace's deposits
// and withdrawals together, ordered by when each started. Each table is read
// per network on its (workspace, network, time) index, stopping after offset +
// limit rows, and the reads merged (find-page.ts, ADR 0036); the total is the two lists'
// counters. A deposit's created_at is its detected_at (both written once, on
// insert), so its list index serves this order too.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Network } from '../../domain/money/networks.js';
import type { PageRequest } from '../../domain/pagination.js';
import type { TransactionLog, TransactionRef, TransactionType } from '../../domain/withdrawals/transaction-log.js';
import { countOf, mergedPage } from './find-page.js';

const SOURCES = [
  { type: 'DEPOSIT', table: 'deposits', at: 'created_at' },
  { type: 'WITHDRAWAL', table: 'withdrawals', at: 'requested_at' },
] as const;

export class PgTransactionLog implements TransactionLog {
  constructor(private readonly em: EntityManager) {}

  async page(workspaceId: string, networks: readonly Network[], type: TransactionType | undefined, page: PageRequest): Promise<{ total: number; refs: TransactionRef[] }> {
    if (networks.length === 0) return { total: 0, refs: [] };
    const sources = SOURCES.filter((s) => type === undefined || s.type === type);
    const reads = sources.flatMap((s) =>
      networks.map((network) => ({
        sql: `select '${s.type}' as type, id, ${s.at} as page_order from ${s.table} where workspace_id = ? and network = ? order by ${s.at} desc, id desc`,
        params: [workspaceId, network],
      })),
    );
    const refs = (await mergedPage<TransactionRef>(this.em, reads, page)).map((r) => ({ type: r.type, id: r.id }));
    let total = 0;
    for (const s of sources) total += await countOf(this.em, s.table, workspaceId, { networks });
    return { total, refs };
  }
}
