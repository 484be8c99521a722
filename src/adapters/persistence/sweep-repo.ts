// SweepRepo in PostgreSQL (ADR 0027): which wallets are due a sweep, the
// sweeps themselves (a partial unique index keeps one open per wallet), the
// deposits each one moves, and the operator's sweep policies.
import type { EntityManager } from '@mikro-orm/postgresql';
import { formatPath, parsePath } from '../../domain/custody/derivation.js';
import type { Asset, Network } from '../../domain/money/networks.js';
import type { SweepRepo } from '../../domain/transfers/ports.js';
import type { Sweep, SweepCandidate, SweepPolicy, SweepStatus } from '../../domain/transfers/sweep.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound } from './sql.js';

const OPEN = `('WAITING_GAS', 'TOPPING_UP', 'SWEEPING')`;

interface SweepRow {
  id: string;
  network: Network;
  asset: Asset;
  wallet_id: string;
  address: string;
  address_path: string;
  status: SweepStatus;
  deposit_total: string;
  top_up_transfer_id: string | null;
  sweep_transfer_id: string | null;
  failure: string | null;
  return_of: string | null;
  return_to: string | null;
  return_amount: string | null;
  created_at: Date;
  updated_at: Date;
}

const toSweep = (r: SweepRow): Sweep => ({
  id: r.id,
  network: r.network,
  asset: r.asset,
  walletId: r.wallet_id,
  address: r.address,
  addressPath: parsePath(r.address_path),
  status: r.status,
  depositTotal: BigInt(r.deposit_total),
  topUpTransferId: r.top_up_transfer_id,
  sweepTransferId: r.sweep_transfer_id,
  failure: r.failure,
  returnOf: r.return_of === null || r.return_to === null || r.return_amount === null ? null : { arrivalId: r.return_of, to: r.return_to, chainAmount: BigInt(r.return_amount) },
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

export class PgSweepRepo implements SweepRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(q: string, params: unknown[]): Promise<T[]> {
    return executeBound<T>(this.em, q, params);
  }

  async candidates(network: Network, minimums: ReadonlyMap<Asset, bigint>, limit: number): Promise<SweepCandidate[]> {
    if (minimums.size === 0) return [];
    const rows = await this.sql<{
      wallet_id: string;
      asset: Asset;
      address: string;
      derivation_account: number;
      derivation_index: number;
      total: string;
      ids: string[];
    }>(
      `select d.wallet_id, d.asset, w.address, w.derivation_account, w.derivation_index, sum(d.amount)::text as total,
              array_agg(d.id order by d.block_number) as ids
       from deposits d
       join wallets w on w.id = d.wallet_id
       join unnest(?::text[], ?::numeric[]) as m(asset, minimum) on m.asset = d.asset
       where d.network = ? and d.status = 'CONFIRMED' and d.sweep_id is null
         and not exists (select 1 from sweeps s where s.wallet_id = d.wallet_id and s.status in ${OPEN})
       group by d.wallet_id, d.asset, w.address, w.derivation_account, w.derivation_index
       having sum(d.amount) >= min(m.minimum)
          -- An arrival the operator credited is swept whatever the minimum: recovering it ends with it in the treasury.
          or bool_or(exists (select 1 from unexpected_deposits u where u.deposit_id = d.id))
       order by min(d.confirmed_at)
       limit ?`,
      [pgArrayLiteral([...minimums.keys()]), pgArrayLiteral([...minimums.values()].map(String)), network, limit],
    );
    return rows.map((r) => ({
      walletId: r.wallet_id,
      asset: r.asset,
      address: r.address,
      derivationAccount: r.derivation_account,
      derivationIndex: r.derivation_index,
      total: BigInt(r.total),
      depositIds: r.ids,
    }));
  }

  async add(sweep: Sweep, depositIds: readonly string[]): Promise<boolean> {
    const inserted = await this.sql<{ id: string }>(
      `insert into sweeps (id, network, asset, wallet_id, address, address_path, status, deposit_total, top_up_transfer_id,
         sweep_transfer_id, failure, return_of, return_to, return_amount, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (wallet_id) where status in ${OPEN} do nothing
       returning id`,
      [
        sweep.id,
        sweep.network,
        sweep.asset,
        sweep.walletId,
        sweep.address,
        formatPath(sweep.addressPath),
        sweep.status,
        sweep.depositTotal.toString(),
        sweep.topUpTransferId,
        sweep.sweepTransferId,
        sweep.failure,
        sweep.returnOf?.arrivalId ?? null,
        sweep.returnOf?.to ?? null,
        sweep.returnOf?.chainAmount.toString() ?? null,
        sweep.createdAt,
        sweep.updatedAt,
      ],
    );
    if (inserted.length === 0) return false;
    const taken = await this.sql<{ id: string }>(
      `update deposits set sweep_id = ? where id = any(?::uuid[]) and sweep_id is null and status = 'CONFIRMED' returning id`,
      [sweep.id, pgArrayLiteral([...depositIds])],
    );
    if (taken.length !== depositIds.length) {
      // Another chain-worker took one of them meanwhile: give back what was taken and drop the sweep.
      await this.sql(`update deposits set sweep_id = null where sweep_id = ?`, [sweep.id]);
      await this.sql(`delete from sweeps where id = ?`, [sweep.id]);
      return false;
    }
    return true;
  }

  async openIds(network: Network, limit: number): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(`select id from sweeps where network = ? and status in ${OPEN} order by created_at limit ?`, [network, limit]);
    return rows.map((r) => r.id);
  }

  async lock(id: string): Promise<Sweep | null> {
    const rows = await this.sql<SweepRow>(`select * from sweeps where id = ? for update skip locked`, [id]);
    return rows[0] ? toSweep(rows[0]) : null;
  }

  async statusOf(id: string): Promise<SweepStatus | null> {
    const rows = await this.sql<{ status: SweepStatus }>(`select status from sweeps where id = ?`, [id]);
    return rows[0]?.status ?? null;
  }

  async update(s: Sweep): Promise<void> {
    await this.sql(
      `update sweeps set status = ?, deposit_total = ?, top_up_transfer_id = ?, sweep_transfer_id = ?, failure = ?, updated_at = ? where id = ?`,
      [s.status, s.depositTotal.toString(), s.topUpTransferId, s.sweepTransferId, s.failure, s.updatedAt, s.id],
    );
  }

  async attachConfirmed(sweepId: string, walletId: string, asset: Asset): Promise<{ chainTotal: bigint; total: bigint }> {
    // Of the sweep's asset only: a wallet may also hold a credited arrival of another asset (swept by a sweep of its own).
    await this.sql(`update deposits set sweep_id = ? where wallet_id = ? and asset = ? and status = 'CONFIRMED' and sweep_id is null`, [sweepId, walletId, asset]);
    const [row] = await this.sql<{ chain_total: string; total: string }>(
      `select coalesce(sum(chain_amount), 0)::text as chain_total, coalesce(sum(amount), 0)::text as total
       from deposits where sweep_id = ? and status = 'CONFIRMED'`,
      [sweepId],
    );
    return { chainTotal: BigInt(row!.chain_total), total: BigInt(row!.total) };
  }

  async nativeHeldAt(network: Network, address: string, nativeAsset: Asset): Promise<bigint> {
    const [row] = await this.sql<{ held: string }>(
      `select ((select coalesce(sum(chain_amount), 0) from deposits
                 where network = ? and to_address = ? and asset = ? and status in ('DETECTED', 'CONFIRMING', 'CONFIRMED', 'FLAGGED'))
             + (select coalesce(sum(chain_amount), 0) from unexpected_deposits
                 where network = ? and to_address = ? and asset = ? and status in ('LISTED', 'RETURNING')))::text as held`,
      [network, address, nativeAsset, network, address, nativeAsset],
    );
    return BigInt(row!.held);
  }

  async failUnsentReturnsAbove(network: Network, block: bigint): Promise<void> {
    await this.sql(
      `update sweeps s set status = 'FAILED', failure = 'its unexpected arrival was taken by a reorg', updated_at = now()
         from unexpected_deposits u
        where s.return_of = u.id and u.network = ? and u.block_number > ? and u.status = 'RETURNING'
          and s.status in ('WAITING_GAS', 'TOPPING_UP')`,
      [network, block.toString()],
    );
  }

  async releaseDeposits(sweepId: string): Promise<void> {
    await this.sql(`update deposits set sweep_id = null where sweep_id = ? and status = 'CONFIRMED'`, [sweepId]);
  }

  /** The CONFIRMED deposits of the sweep become SWEPT; their ids. */
  async markSwept(sweepId: string, at: Date): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(
      `update deposits set status = 'SWEPT', swept_at = ?, updated_at = ? where sweep_id = ? and status = 'CONFIRMED' returning id`,
      [at, at, sweepId],
    );
    return rows.map((r) => r.id);
  }

  /** The wallet is SWEPT when nothing of it is left unswept (an ARCHIVED wallet stays ARCHIVED). */
  async markWalletSwept(walletId: string): Promise<void> {
    await this.sql(
      `update wallets set status = 'SWEPT' where id = ? and status = 'ACTIVE'
         and not exists (select 1 from deposits where wallet_id = ? and status in ('DETECTED', 'CONFIRMING', 'CONFIRMED', 'FLAGGED'))`,
      [walletId, walletId],
    );
  }

  async byTransfer(transferId: string): Promise<Sweep | null> {
    const rows = await this.sql<SweepRow>(`select * from sweeps where top_up_transfer_id = ? or sweep_transfer_id = ? for update`, [
      transferId,
      transferId,
    ]);
    return rows[0] ? toSweep(rows[0]) : null;
  }

  async policies(): Promise<SweepPolicy[]> {
    const rows = await this.sql<{ network: Network; asset: Asset; minimum: string; interval_seconds: number; last_run_at: Date | null }>(
      `select network, asset, minimum::text, interval_seconds, last_run_at from sweep_policies`,
      [],
    );
    return rows.map((r) => ({
      network: r.network,
      asset: r.asset,
      minimum: BigInt(r.minimum),
      intervalSeconds: r.interval_seconds,
      lastRunAt: r.last_run_at === null ? null : new Date(r.last_run_at),
    }));
  }

  async setPolicy(p: SweepPolicy): Promise<void> {
    await this.sql(
      `insert into sweep_policies (network, asset, minimum, interval_seconds, last_run_at, updated_at) values (?, ?, ?, ?, ?, now())
       on conflict (network, asset) do update set minimum = excluded.minimum, interval_seconds = excluded.interval_seconds,
         last_run_at = coalesce(excluded.last_run_at, sweep_policies.last_run_at), updated_at = now()`,
      [p.network, p.asset, p.minimum.toString(), p.intervalSeconds, p.lastRunAt],
    );
  }

  async markRun(network: Network, asset: Asset, at: Date): Promise<void> {
    await this.sql(`update sweep_policies set last_run_at = ? where network = ? and asset = ?`, [at, network, asset]);
  }
}
