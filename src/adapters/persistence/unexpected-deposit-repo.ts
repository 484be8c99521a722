// UnexpectedDepositRepo in PostgreSQL (issue 31, ADR 0032): money that
// arrived at a deposit address in another asset than its wallet's, one row
// per identity (network, txid, log index; -1 for a native transfer).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { UnexpectedDepositRepo } from '../../domain/deposits/ports.js';
import { depositIdentity } from '../../domain/deposits/deposit.js';
import type { UnexpectedDeposit, UnexpectedStatus } from '../../domain/deposits/unexpected-deposit.js';
import type { Asset, Network } from '../../domain/money/networks.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound } from './sql.js';

const NATIVE_LOG_INDEX = -1;
const OPEN_SWEEP = `('WAITING_GAS', 'TOPPING_UP', 'SWEEPING')`;

interface Row {
  id: string;
  network: Network;
  asset: Asset;
  wallet_id: string;
  workspace_id: string;
  wallet_asset: Asset;
  txid: string;
  log_index: number;
  from_address: string;
  to_address: string;
  chain_amount: string;
  block_number: string;
  block_hash: string;
  status: UnexpectedStatus;
  deposit_id: string | null;
  return_transfer_id: string | null;
  detected_at: Date;
  resolved_at: Date | null;
}

const SELECT = `select id, network, asset, wallet_id, workspace_id, wallet_asset, txid, log_index, from_address, to_address,
  chain_amount::text, block_number::text, block_hash, status, deposit_id, return_transfer_id, detected_at, resolved_at from unexpected_deposits`;

const toArrival = (r: Row): UnexpectedDeposit => ({
  id: r.id,
  network: r.network,
  asset: r.asset,
  walletId: r.wallet_id,
  workspaceId: r.workspace_id,
  walletAsset: r.wallet_asset,
  txid: r.txid,
  logIndex: r.log_index === NATIVE_LOG_INDEX ? null : r.log_index,
  fromAddress: r.from_address,
  toAddress: r.to_address,
  chainAmount: BigInt(r.chain_amount),
  blockNumber: BigInt(r.block_number),
  blockHash: r.block_hash,
  status: r.status,
  depositId: r.deposit_id,
  returnTransferId: r.return_transfer_id,
  detectedAt: new Date(r.detected_at),
  resolvedAt: r.resolved_at === null ? null : new Date(r.resolved_at),
});

export class PgUnexpectedDepositRepo implements UnexpectedDepositRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[] = []): Promise<T[]> {
    return executeBound<T>(this.em, text, params);
  }

  async record(arrivals: UnexpectedDeposit[]): Promise<number> {
    let added = 0;
    // Few: a row at a time. A block seen again (a rescan, a reorg's re-read) records nothing twice.
    for (const a of arrivals) {
      const rows = await this.sql<{ id: string }>(
        `insert into unexpected_deposits (id, network, asset, wallet_id, workspace_id, wallet_asset, txid, log_index, from_address,
           to_address, chain_amount, block_number, block_hash, status, detected_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         on conflict on constraint unexpected_deposits_identity_unique do update
           set block_number = excluded.block_number, block_hash = excluded.block_hash
           where unexpected_deposits.status = 'LISTED' and unexpected_deposits.block_hash <> excluded.block_hash
         returning (xmax = 0) as inserted`,
        [
          a.id,
          a.network,
          a.asset,
          a.walletId,
          a.workspaceId,
          a.walletAsset,
          a.txid,
          a.logIndex ?? NATIVE_LOG_INDEX,
          a.fromAddress,
          a.toAddress,
          a.chainAmount.toString(),
          a.blockNumber.toString(),
          a.blockHash,
          a.status,
          a.detectedAt,
        ],
      );
      if ((rows[0] as { inserted?: boolean } | undefined)?.inserted) added++;
    }
    return added;
  }

  async credited(network: Network, identities: readonly { txid: string; logIndex: number | null }[]): Promise<Set<string>> {
    if (identities.length === 0) return new Set();
    const rows = await this.sql<{ txid: string; log_index: number }>(
      `select u.txid, u.log_index from unexpected_deposits u
         join unnest(?::text[], ?::int[]) as i(txid, log_index) on u.txid = i.txid and u.log_index = i.log_index
        where u.network = ? and u.status = 'CREDITED'`,
      [pgArrayLiteral(identities.map((i) => i.txid)), pgArrayLiteral(identities.map((i) => i.logIndex ?? NATIVE_LOG_INDEX)), network],
    );
    return new Set(rows.map((r) => depositIdentity(network, r.txid, r.log_index === NATIVE_LOG_INDEX ? null : r.log_index)));
  }

  async lock(id: string): Promise<UnexpectedDeposit | null> {
    const [row] = await this.sql<Row>(`${SELECT} where id = ? for update`, [id]);
    return row ? toArrival(row) : null;
  }

  async byReturnTransfer(transferId: string): Promise<UnexpectedDeposit | null> {
    const [row] = await this.sql<Row>(`${SELECT} where return_transfer_id = ? for update`, [transferId]);
    return row ? toArrival(row) : null;
  }

  async update(a: UnexpectedDeposit): Promise<void> {
    await this.sql(`update unexpected_deposits set status = ?, deposit_id = ?, return_transfer_id = ?, resolved_at = ? where id = ?`, [
      a.status,
      a.depositId,
      a.returnTransferId,
      a.resolvedAt,
      a.id,
    ]);
  }

  async list(filter: { status?: UnexpectedStatus; network?: Network }, limit: number): Promise<UnexpectedDeposit[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status) {
      where.push('status = ?');
      params.push(filter.status);
    }
    if (filter.network) {
      where.push('network = ?');
      params.push(filter.network);
    }
    const rows = await this.sql<Row>(`${SELECT} ${where.length ? `where ${where.join(' and ')}` : ''} order by detected_at desc, id limit ?`, [...params, limit]);
    return rows.map(toArrival);
  }

  async forgetAbove(network: Network, block: bigint): Promise<number> {
    const rows = await this.sql<{ id: string }>(
      `delete from unexpected_deposits u
        where u.network = ? and u.block_number > ?
          and (u.status = 'LISTED'
               or (u.status = 'RETURNING' and not exists (select 1 from sweeps s where s.return_of = u.id and s.status in ${OPEN_SWEEP})))
        returning u.id`,
      [network, block.toString()],
    );
    return rows.length;
  }

  async returnsDue(network: Network, limit: number): Promise<{ arrival: UnexpectedDeposit; derivationAccount: number; derivationIndex: number }[]> {
    const rows = await this.sql<Row & { derivation_account: number; derivation_index: number }>(
      `select u.id, u.network, u.asset, u.wallet_id, u.workspace_id, u.wallet_asset, u.txid, u.log_index, u.from_address, u.to_address,
              u.chain_amount::text, u.block_number::text, u.block_hash, u.status, u.deposit_id, u.return_transfer_id, u.detected_at,
              u.resolved_at, w.derivation_account, w.derivation_index
         from unexpected_deposits u join wallets w on w.id = u.wallet_id
        where u.network = ? and u.status = 'RETURNING'
          and not exists (select 1 from sweeps s where s.return_of = u.id and s.status in ${OPEN_SWEEP})
        order by u.detected_at limit ?`,
      [network, limit],
    );
    return rows.map((r) => ({ arrival: toArrival(r), derivationAccount: r.derivation_account, derivationIndex: r.derivation_index }));
  }

  async listedTotals(): Promise<{ network: Network; asset: Asset; count: number; chainAmount: bigint }[]> {
    const rows = await this.sql<{ network: Network; asset: Asset; count: string; total: string }>(
      `select network, asset, count(*)::text as count, sum(chain_amount)::text as total from unexpected_deposits where status = 'LISTED' group by network, asset`,
    );
    return rows.map((r) => ({ network: r.network, asset: r.asset, count: Number(r.count), chainAmount: BigInt(r.total) }));
  }
}
