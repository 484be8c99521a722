// GET /v2/transactions (ADR 0022): one feed of a workspace's deposits and
// withdrawals, newest start first (a deposit's detection, a withdrawal's
// request; ties by id). The page is chosen here; the records are read from
// their own repositories.
import type { Network } from '../money/networks.js';
import type { PageRequest } from '../pagination.js';

export type TransactionType = 'DEPOSIT' | 'WITHDRAWAL';

export interface TransactionRef {
  type: TransactionType;
  id: string;
}

export interface TransactionLog {
  page(workspaceId: string, networks: readonly Network[], type: TransactionType | undefined, page: PageRequest): Promise<{ total: number; refs: TransactionRef[] }>;
}
