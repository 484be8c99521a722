// WithdrawalRepo in PostgreSQL (table `withdrawals`): rows read and written
// with plain SQL, amounts as NUMERIC text and bigints, locks with FOR UPDATE.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Asset, Network } from '../../domain/money/networks.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import { conditions, countOf, pageRows } from './find-page.js';
import type { WithdrawalFilter, WithdrawalRepo } from '../../domain/withdrawals/ports.js';
import type { Withdrawal, WithdrawalStatus } from '../../domain/withdrawals/withdrawal.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound } from './sql.js';

interface Row {
  id: string;
  workspace_id: string;
  network: Network;
  asset: Asset;
  amount: string;
  fee: string;
  net_amount: string;
  destination: string;
  status: WithdrawalStatus;
  idempotency_key: string | null;
  transfer_id: string | null;
  txid: string | null;
  failure: string | null;
  requested_at: Date | string;
  confirmed_at: Date | string | null;
  updated_at: Date | string;
}

const COLUMNS = `id, workspace_id, network, asset, amount::text, fee::text, net_amount::text, destination, status, idempotency_key,
  transfer_id, txid, failure, requested_at, confirmed_at, updated_at`;

const toWithdrawal = (r: Row): Withdrawal => ({
  id: r.id,
  workspaceId: r.workspace_id,
  network: r.network,
  asset: r.asset,
  amount: BigInt(r.amount),
  fee: BigInt(r.fee),
  netAmount: BigInt(r.net_amount),
  destination: r.destination,
  status: r.status,
  idempotencyKey: r.idempotency_key,
  transferId: r.transfer_id,
  txid: r.txid,
  failure: r.failure,
  requestedAt: new Date(r.requested_at),
  confirmedAt: r.confirmed_at === null ? null : new Date(r.confirmed_at),
  updatedAt: new Date(r.updated_at),
});

export class PgWithdrawalRepo implements WithdrawalRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(q: string, params: unknown[]): Promise<T[]> {
    return executeBound<T>(this.em, q, params);
  }

  async add(w: Withdrawal): Promise<void> {
    await this.sql(
      `insert into withdrawals (id, workspace_id, network, asset, amount, fee, net_amount, destination, status, idempotency_key, transfer_id, txid,
         failure, requested_at, confirmed_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        w.id,
        w.workspaceId,
        w.network,
        w.asset,
        w.amount.toString(),
        w.fee.toString(),
        w.netAmount.toString(),
        w.destination,
        w.status,
        w.idempotencyKey,
        w.transferId,
        w.txid,
        w.failure,
        w.requestedAt,
        w.confirmedAt,
        w.updatedAt,
      ],
    );
  }

  async get(workspaceId: string, networks: readonly Network[], id: string): Promise<Withdrawal | null> {
    if (networks.length === 0) return null;
    const [row] = await this.sql<Row>(`select ${COLUMNS} from withdrawals where id = ? and workspace_id = ? and network = any(?::text[])`, [id, workspaceId, pgArrayLiteral(networks)]);
    return row ? toWithdrawal(row) : null;
  }

  async statusOf(id: string): Promise<WithdrawalStatus | null> {
    const [row] = await this.sql<{ status: WithdrawalStatus }>(`select status from withdrawals where id = ?`, [id]);
    return row?.status ?? null;
  }

  async lock(id: string): Promise<Withdrawal | null> {
    const [row] = await this.sql<Row>(`select ${COLUMNS} from withdrawals where id = ? for update`, [id]);
    return row ? toWithdrawal(row) : null;
  }

  async save(w: Withdrawal): Promise<void> {
    await this.sql(`update withdrawals set status = ?, transfer_id = ?, txid = ?, failure = ?, confirmed_at = ?, updated_at = ? where id = ?`, [
      w.status,
      w.transferId,
      w.txid,
      w.failure,
      w.confirmedAt,
      w.updatedAt,
      w.id,
    ]);
  }

  async getMany(workspaceId: string, networks: readonly Network[], ids: readonly string[]): Promise<Withdrawal[]> {
    if (ids.length === 0 || networks.length === 0) return [];
    const rows = await this.sql<Row>(`select ${COLUMNS} from withdrawals where id = any(?::uuid[]) and workspace_id = ? and network = any(?::text[])`, [
      pgArrayLiteral(ids),
      workspaceId,
      pgArrayLiteral(networks),
    ]);
    return rows.map(toWithdrawal);
  }

  async list(workspaceId: string, networks: readonly Network[], filter: WithdrawalFilter, page: PageRequest): Promise<Page<Withdrawal>> {
    const nets = filter.network ? networks.filter((n) => n === filter.network) : [...networks];
    if (nets.length === 0) return { total: 0, page: page.page, limit: page.limit, data: [] };
    const q = { table: 'withdrawals', columns: COLUMNS, orderBy: 'requested_at', networks: nets, ...conditions({ workspace_id: workspaceId }, { status: filter.status }) };
    const rows = await pageRows<Row>(this.em, q, page);
    const total = await countOf(this.em, 'withdrawals', workspaceId, { networks: nets, status: filter.status });
    return { total, page: page.page, limit: page.limit, data: rows.map(toWithdrawal) };
  }

  async totalsSince(workspaceId: string, networks: readonly Network[], since: Date): Promise<{ asset: Asset; amount: bigint }[]> {
    if (networks.length === 0) return [];
    const rows = await this.sql<{ asset: Asset; amount: string }>(
      `select asset, sum(amount)::text as amount from withdrawals
       where workspace_id = ? and network = any(?::text[]) and requested_at > ? and status not in ('CANCELLED', 'FAILED')
       group by asset`,
      [workspaceId, pgArrayLiteral(networks), since],
    );
    return rows.map((r) => ({ asset: r.asset, amount: BigInt(r.amount) }));
  }

  async readyIds(network: Network, limit: number): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(
      `select id from withdrawals where network = ? and status = 'PENDING' and transfer_id is null order by requested_at limit ?`,
      [network, limit],
    );
    return rows.map((r) => r.id);
  }

  async unsentNetTotal(network: Network, asset: Asset): Promise<bigint> {
    const [row] = await this.sql<{ total: string | null }>(
      `select sum(net_amount)::text as total from withdrawals
        where network = ? and asset = ? and status in ('PENDING_APPROVAL', 'PENDING', 'UNDER_REVIEW') and transfer_id is null`,
      [network, asset],
    );
    return BigInt(row?.total ?? '0');
  }

  async behindTheirTransferIds(network: Network, limit: number): Promise<string[]> {
    // Only the withdrawals with something to do: on a busy network most in-flight ones show what their
    // transfer shows already, and looking at each of them every step would cost a transaction apiece.
    const rows = await this.sql<{ id: string }>(
      `select w.id from withdrawals w join outgoing_transfers t on t.id = w.transfer_id
        where w.network = ? and w.status in ('PENDING', 'PROCESSING', 'CONFIRMING')
          and ((w.status = 'PENDING' and t.status in ('BROADCAST', 'CONFIRMING'))
            or (w.status = 'PROCESSING' and t.status = 'CONFIRMING')
            or (w.status = 'CONFIRMING' and t.status = 'BROADCAST'))
        order by w.requested_at limit ?`,
      [network, limit],
    );
    return rows.map((r) => r.id);
  }

  async byTransfer(transferId: string): Promise<Withdrawal | null> {
    const [row] = await this.sql<Row>(`select ${COLUMNS} from withdrawals where transfer_id = ? for update`, [transferId]);
    return row ? toWithdrawal(row) : null;
  }
}
