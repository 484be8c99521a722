// DepositRepo in PostgreSQL. New deposits go in with one multi-row INSERT ...
// ON CONFLICT on their identity (network, txid, log index), so a transfer seen
// twice, by two scanners or a rescan, is one row; a native transfer is stored
// with log index -1. Reads for the API go through the ORM.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deposit, DepositStatus } from '../../domain/deposits/deposit.js';
import type { DepositFilter, DepositRepo } from '../../domain/deposits/ports.js';
import { ASSET_SPECS, type Asset, type Network } from '../../domain/money/networks.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import { pageOfList } from './find-page.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound, executeInline } from './sql.js';
import { isUuid } from '../../domain/ids.js';

const NATIVE_LOG_INDEX = -1;

interface SqlRow {
  id: string;
  workspace_id: string;
  wallet_id: string;
  customer_id: string | null;
  network: string;
  asset: string;
  txid: string;
  log_index: number;
  from_address: string;
  to_address: string;
  chain_amount: string;
  amount: string;
  block_number: string;
  block_hash: string;
  status: string;
  confirmations: number;
  required_confirmations: number;
  fee_amount: string | null;
  net_amount: string | null;
  applied_rate_ppm: string | null;
  applied_min_fee: string | null;
  detected_at: Date;
  confirmed_at: Date | null;
  swept_at: Date | null;
  updated_at: Date;
}

/** A PostgreSQL array literal of plain tokens (uuids, integers, enum names): knex would expand a JS array. */

const big = (v: string | number | bigint): bigint => BigInt(v);

function fromSql(r: SqlRow): Deposit {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    walletId: r.wallet_id,
    customerId: r.customer_id,
    network: r.network as Network,
    asset: r.asset as Asset,
    txid: r.txid,
    logIndex: r.log_index === NATIVE_LOG_INDEX ? null : r.log_index,
    fromAddress: r.from_address,
    toAddress: r.to_address,
    chainAmount: big(r.chain_amount),
    amount: big(r.amount),
    blockNumber: big(r.block_number),
    blockHash: r.block_hash,
    status: r.status as DepositStatus,
    confirmations: r.confirmations,
    requiredConfirmations: r.required_confirmations,
    fee:
      r.fee_amount === null
        ? null
        : {
            feeAmount: big(r.fee_amount),
            netAmount: big(r.net_amount ?? '0'),
            appliedRatePpm: big(r.applied_rate_ppm ?? '0'),
            appliedMinFee: big(r.applied_min_fee ?? '0'),
          },
    detectedAt: new Date(r.detected_at),
    confirmedAt: r.confirmed_at ? new Date(r.confirmed_at) : null,
    sweptAt: r.swept_at ? new Date(r.swept_at) : null,
    updatedAt: new Date(r.updated_at),
  };
}

const COLUMNS = [
  'id',
  'workspace_id',
  'wallet_id',
  'customer_id',
  'network',
  'asset',
  'txid',
  'log_index',
  'from_address',
  'to_address',
  'chain_amount',
  'amount',
  'block_number',
  'block_hash',
  'status',
  'confirmations',
  'required_confirmations',
  'detected_at',
  'created_at',
  'updated_at',
] as const;

/** The SQL type of each inserted column, for its unnested array. */
const COLUMN_TYPES: Record<(typeof COLUMNS)[number], string> = {
  id: 'uuid',
  workspace_id: 'uuid',
  wallet_id: 'uuid',
  customer_id: 'uuid',
  network: 'text',
  asset: 'text',
  txid: 'text',
  log_index: 'int',
  from_address: 'text',
  to_address: 'text',
  chain_amount: 'numeric',
  amount: 'numeric',
  block_number: 'bigint',
  block_hash: 'text',
  status: 'text',
  confirmations: 'int',
  required_confirmations: 'int',
  detected_at: 'timestamptz',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
};

/** Rows per INSERT statement. */
const INSERT_CHUNK = 5000;

export class PgDepositRepo implements DepositRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[]): Promise<T[]> {
    return executeInline<T>(this.em, text, params, this.em.getTransactionContext());
  }

  async record(deposits: Deposit[]): Promise<Deposit[]> {
    const out: Deposit[] = [];
    for (let i = 0; i < deposits.length; i += INSERT_CHUNK) {
      const chunk = deposits.slice(i, i + INSERT_CHUNK);
      // One array per column, unnested: a few parameters however many rows (much cheaper to bind and plan than a VALUES list).
      const values: Record<(typeof COLUMNS)[number], (string | number | null)[]> = Object.fromEntries(COLUMNS.map((c) => [c, []])) as never;
      for (const d of chunk) {
        values.id.push(d.id);
        values.workspace_id.push(d.workspaceId);
        values.wallet_id.push(d.walletId);
        values.customer_id.push(d.customerId);
        values.network.push(d.network);
        values.asset.push(d.asset);
        values.txid.push(d.txid);
        values.log_index.push(d.logIndex ?? NATIVE_LOG_INDEX);
        values.from_address.push(d.fromAddress);
        values.to_address.push(d.toAddress);
        values.chain_amount.push(d.chainAmount.toString());
        values.amount.push(d.amount.toString());
        values.block_number.push(d.blockNumber.toString());
        values.block_hash.push(d.blockHash);
        values.status.push(d.status);
        values.confirmations.push(d.confirmations);
        values.required_confirmations.push(d.requiredConfirmations);
        values.detected_at.push(d.detectedAt.toISOString());
        values.created_at.push(d.detectedAt.toISOString());
        values.updated_at.push(d.updatedAt.toISOString());
      }
      // An open deposit seen again in another block (re-included after a reorg another node answered for)
      // moves there and counts its confirmations again: its block must be the one the node URLs agree on.
      await executeBound(
        this.em,
        `update deposits d set block_number = v.block_number, block_hash = v.block_hash, confirmations = v.confirmations,
                status = 'DETECTED', updated_at = v.updated_at
           from unnest(?::text[], ?::text[], ?::int[], ?::bigint[], ?::text[], ?::int[], ?::timestamptz[])
                as v(network, txid, log_index, block_number, block_hash, confirmations, updated_at)
          where d.network = v.network and d.txid = v.txid and d.log_index = v.log_index
            and d.status in ('DETECTED', 'CONFIRMING') and d.block_hash <> v.block_hash`,
        [values.network, values.txid, values.log_index, values.block_number, values.block_hash, values.confirmations, values.updated_at].map((col) => pgArrayLiteral(col)),
      );
      // A FAILED deposit whose transfer shows up again is reopened in place (same id, fresh block); a
      // credited one marked reorged out is found again: it stays CONFIRMED, in its new block, unmarked
      // (and is not returned: it is not new). Every other existing identity is left alone.
      const rows = await executeBound<SqlRow>(
        this.em,
        `insert into deposits (${COLUMNS.join(', ')})
         select * from unnest(${COLUMNS.map((c) => `?::${COLUMN_TYPES[c]}[]`).join(', ')})
         on conflict on constraint deposits_identity_unique do update
           set status = case when deposits.status = 'FAILED' then excluded.status else deposits.status end,
               confirmations = case when deposits.status = 'FAILED' then excluded.confirmations else deposits.confirmations end,
               block_number = excluded.block_number, block_hash = excluded.block_hash,
               reorged_out_at = null, updated_at = excluded.updated_at
           where deposits.status = 'FAILED' or (deposits.status = 'CONFIRMED' and deposits.reorged_out_at is not null)
         returning *`,
        COLUMNS.map((c) => pgArrayLiteral(values[c])),
      );
      out.push(...rows.filter((r) => r.status !== 'CONFIRMED').map(fromSql));
    }
    return out;
  }

  async markReorgedOut(ids: readonly string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.sql(`update deposits set reorged_out_at = coalesce(reorged_out_at, ?) where id = any(?::uuid[]) and status = 'CONFIRMED'`, [at, pgArrayLiteral(ids)]);
  }

  async reorgedOutBy(network: Network, tip: bigint): Promise<Deposit[]> {
    const rows = await this.sql<SqlRow>(
      `select * from deposits where network = ? and status = 'CONFIRMED' and reorged_out_at is not null
         and block_number + required_confirmations - 1 <= ?::bigint order by block_number, log_index for update`,
      [network, tip.toString()],
    );
    return rows.map(fromSql);
  }

  async above(network: Network, block: bigint, statuses: readonly DepositStatus[]): Promise<Deposit[]> {
    const rows = await this.sql<SqlRow>(
      `select * from deposits where network = ? and block_number > ? and status = any(?::text[]) order by block_number, log_index`,
      [network, block.toString(), pgArrayLiteral(statuses)],
    );
    return rows.map(fromSql);
  }

  async advanceConfirmations(network: Network, tip: bigint, at: Date): Promise<void> {
    // confirmationsAt (src/domain/deposits/deposit.ts): the deposit's own block counts as the first.
    await this.sql(
      `update deposits set
         confirmations = greatest(confirmations, (?::bigint - block_number + 1)::int),
         status = case when greatest(confirmations, (?::bigint - block_number + 1)::int) > 1 then 'CONFIRMING' else 'DETECTED' end,
         updated_at = ?
       where network = ? and status = 'DETECTED' and block_number <= ?::bigint
         and ?::bigint - block_number + 1 < required_confirmations
         and (confirmations < ?::bigint - block_number + 1)`,
      [tip.toString(), tip.toString(), at, network, tip.toString(), tip.toString(), tip.toString()],
    );
  }

  async reachingThreshold(network: Network, tip: bigint): Promise<Deposit[]> {
    const rows = await this.sql<SqlRow>(
      `select * from deposits where network = ? and status in ('DETECTED', 'CONFIRMING')
         and greatest(confirmations, (?::bigint - block_number + 1)::int) >= required_confirmations
       order by block_number, log_index`,
      [network, tip.toString()],
    );
    return rows.map(fromSql);
  }

  async update(d: Deposit): Promise<void> {
    await this.updateMany([d]);
  }

  async updateMany(deposits: readonly Deposit[]): Promise<void> {
    for (let i = 0; i < deposits.length; i += INSERT_CHUNK) {
      const chunk = deposits.slice(i, i + INSERT_CHUNK);
      const col = (f: (d: Deposit) => string | number | null) => pgArrayLiteral(chunk.map(f));
      await executeBound(
        this.em,
        `update deposits d set status = v.status, confirmations = v.confirmations, block_number = v.block_number, block_hash = v.block_hash,
           fee_amount = v.fee_amount, net_amount = v.net_amount, applied_rate_ppm = v.applied_rate_ppm, applied_min_fee = v.applied_min_fee,
           confirmed_at = v.confirmed_at, swept_at = v.swept_at, updated_at = v.updated_at
         from unnest(?::uuid[], ?::text[], ?::int[], ?::bigint[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[], ?::numeric[],
                     ?::timestamptz[], ?::timestamptz[], ?::timestamptz[])
           as v(id, status, confirmations, block_number, block_hash, fee_amount, net_amount, applied_rate_ppm, applied_min_fee, confirmed_at, swept_at, updated_at)
         where d.id = v.id`,
        [
          col((d) => d.id),
          col((d) => d.status),
          col((d) => d.confirmations),
          col((d) => d.blockNumber.toString()),
          col((d) => d.blockHash),
          col((d) => d.fee?.feeAmount.toString() ?? null),
          col((d) => d.fee?.netAmount.toString() ?? null),
          col((d) => d.fee?.appliedRatePpm.toString() ?? null),
          col((d) => d.fee?.appliedMinFee.toString() ?? null),
          col((d) => d.confirmedAt?.toISOString() ?? null),
          col((d) => d.sweptAt?.toISOString() ?? null),
          col((d) => d.updatedAt.toISOString()),
        ],
      );
    }
  }

  async lockById(id: string): Promise<Deposit | null> {
    const [row] = await this.sql<SqlRow>(`select * from deposits where id = ? for update`, [id]);
    return row ? fromSql(row) : null;
  }

  async byIdentity(network: Network, txid: string, logIndex: number | null): Promise<Deposit | null> {
    const [row] = await this.sql<SqlRow>(`select * from deposits where network = ? and txid = ? and log_index = ?`, [
      network,
      txid,
      logIndex ?? NATIVE_LOG_INDEX,
    ]);
    return row ? fromSql(row) : null;
  }

  async get(workspaceId: string, networks: readonly Network[], id: string): Promise<Deposit | null> {
    return (await this.getMany(workspaceId, networks, [id]))[0] ?? null;
  }

  async getMany(workspaceId: string, networks: readonly Network[], ids: readonly string[]): Promise<Deposit[]> {
    const known = ids.filter(isUuid); // a malformed id is simply not found (and never reaches the uuid cast)
    if (known.length === 0 || networks.length === 0) return [];
    const rows = await executeBound<SqlRow>(
      this.em,
      `select * from deposits where id = any(?::uuid[]) and workspace_id = ? and network = any(?::text[])`,
      [pgArrayLiteral(known), workspaceId, pgArrayLiteral([...networks])],
    );
    return rows.map(fromSql);
  }

  async list(workspaceId: string, networks: readonly Network[], filter: DepositFilter, page: PageRequest): Promise<Page<Deposit>> {
    const nets = filter.network ? (networks.includes(filter.network) ? [filter.network] : []) : [...networks];
    return pageOfList(this.em, { fromRow: (r) => fromSql(r as unknown as SqlRow) }, {
      table: 'deposits',
      list: 'deposits',
      orderBy: 'created_at',
      workspaceId,
      networks: nets,
      status: filter.status,
      narrow: { wallet_id: filter.walletId, customer_id: filter.customerId },
    }, page);
  }

  async hasCreditedTokenDeposit(workspaceId: string, networks: readonly Network[]): Promise<boolean> {
    if (networks.length === 0) return false;
    const tokens = (Object.keys(ASSET_SPECS) as Asset[]).filter((a) => !ASSET_SPECS[a].native);
    const rows = await this.sql<{ found: number }>(
      `select 1 as found from deposits where workspace_id = ? and network = any(?::text[]) and asset = any(?::text[]) and status in ('CONFIRMED', 'SWEPT') limit 1`,
      [workspaceId, pgArrayLiteral(networks), pgArrayLiteral(tokens)],
    );
    return rows.length > 0;
  }

  async countByStatus(): Promise<{ network: Network; status: DepositStatus; count: number }[]> {
    const rows = await this.sql<{ network: Network; status: DepositStatus; count: string }>(
      `select network, status, count(*)::text as count from deposits group by network, status`,
      [],
    );
    return rows.map((r) => ({ network: r.network, status: r.status, count: Number(r.count) }));
  }
}
