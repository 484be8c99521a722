// EnergyRepo in PostgreSQL (ADR 0035): the operator's energy policy per TRON
// network, and the loans of energy (a partial unique index keeps one open per
// sweep or payout).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DelegationPurpose, DelegationStatus, EnergyDelegation, EnergyRepo } from '../../domain/energy/delegation.js';
import type { BurnReason, EnergyPolicy, EnergySourceKind } from '../../domain/energy/energy-plan.js';
import type { Network } from '../../domain/money/networks.js';
import { lockUntilCommit } from './advisory-lock.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound } from './sql.js';

const OPEN = `('DELEGATING', 'DELEGATED', 'RECLAIMING')`;

interface DelegationRow {
  id: string;
  network: string;
  from_address: string;
  receiver: string;
  stake: string;
  energy: string;
  purpose: DelegationPurpose;
  purpose_id: string;
  status: DelegationStatus;
  delegate_transfer_id: string;
  reclaim_transfer_id: string | null;
  reclaim_failures: number;
  burn_equivalent: string;
  used_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const toDelegation = (r: DelegationRow): EnergyDelegation => ({
  id: r.id,
  network: r.network,
  from: r.from_address,
  receiver: r.receiver,
  stake: BigInt(r.stake),
  energy: BigInt(r.energy),
  purpose: r.purpose,
  purposeId: r.purpose_id,
  status: r.status,
  delegateTransferId: r.delegate_transfer_id,
  reclaimTransferId: r.reclaim_transfer_id,
  reclaimFailures: r.reclaim_failures,
  burnEquivalent: BigInt(r.burn_equivalent),
  usedBy: r.used_by,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

export class PgEnergyRepo implements EnergyRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(q: string, params: unknown[]): Promise<T[]> {
    return executeBound<T>(this.em, q, params);
  }

  async policies(): Promise<EnergyPolicy[]> {
    const rows = await this.sql<{ network: Network; source: EnergySourceKind; margin_percent: number; max_wait_seconds: number; updated_at: Date }>(
      `select network, source, margin_percent, max_wait_seconds, updated_at from energy_policies order by network`,
      [],
    );
    return rows.map((r) => ({ network: r.network, source: r.source, marginPercent: r.margin_percent, maxWaitSeconds: r.max_wait_seconds, updatedAt: new Date(r.updated_at) }));
  }

  async setPolicy(p: EnergyPolicy): Promise<void> {
    await this.sql(
      `insert into energy_policies (network, source, margin_percent, max_wait_seconds, updated_at) values (?, ?, ?, ?, ?)
       on conflict (network) do update set source = excluded.source, margin_percent = excluded.margin_percent,
         max_wait_seconds = excluded.max_wait_seconds, updated_at = excluded.updated_at`,
      [p.network, p.source, p.marginPercent, p.maxWaitSeconds, p.updatedAt ?? new Date()],
    );
  }

  async lockLender(network: string): Promise<void> {
    await lockUntilCommit(this.em, `energy-lender:${network}`);
  }

  async add(d: EnergyDelegation): Promise<boolean> {
    const rows = await this.sql<{ id: string }>(
      `insert into energy_delegations (id, network, from_address, receiver, stake, energy, purpose, purpose_id, status,
         delegate_transfer_id, reclaim_transfer_id, reclaim_failures, burn_equivalent, used_by, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (purpose, purpose_id) where status in ${OPEN} do nothing returning id`,
      [
        d.id,
        d.network,
        d.from,
        d.receiver,
        d.stake.toString(),
        d.energy.toString(),
        d.purpose,
        d.purposeId,
        d.status,
        d.delegateTransferId,
        d.reclaimTransferId,
        d.reclaimFailures,
        d.burnEquivalent.toString(),
        d.usedBy,
        d.createdAt,
        d.updatedAt,
      ],
    );
    return rows.length === 1;
  }

  async save(d: EnergyDelegation): Promise<void> {
    await this.sql(`update energy_delegations set status = ?, reclaim_transfer_id = ?, reclaim_failures = ?, used_by = ?, updated_at = ? where id = ?`, [
      d.status,
      d.reclaimTransferId,
      d.reclaimFailures,
      d.usedBy,
      d.updatedAt,
      d.id,
    ]);
  }

  async openFor(purpose: DelegationPurpose, purposeId: string): Promise<EnergyDelegation | null> {
    const rows = await this.sql<DelegationRow>(`select * from energy_delegations where purpose = ? and purpose_id = ? and status in ${OPEN} for update`, [purpose, purposeId]);
    return rows[0] ? toDelegation(rows[0]) : null;
  }

  async byTransfer(transferId: string): Promise<EnergyDelegation | null> {
    const rows = await this.sql<DelegationRow>(`select * from energy_delegations where delegate_transfer_id = ? or reclaim_transfer_id = ? for update`, [
      transferId,
      transferId,
    ]);
    return rows[0] ? toDelegation(rows[0]) : null;
  }

  async stakeOut(network: string): Promise<bigint> {
    const [row] = await this.sql<{ total: string | null }>(`select sum(stake)::text as total from energy_delegations where network = ? and status in ${OPEN}`, [network]);
    return BigInt(row?.total ?? '0');
  }

  async openCounts(network: string, slowBefore: Date): Promise<{ open: number; lent: number; failing: number }> {
    const [row] = await this.sql<{ open: string; lent: string; failing: string }>(
      `select count(*)::text as open,
              (count(*) filter (where status in ('DELEGATING', 'DELEGATED')))::text as lent,
              (count(*) filter (where status = 'RECLAIMING' and (reclaim_failures > 0 or updated_at < ?)))::text as failing
         from energy_delegations where network = ? and status in ${OPEN}`,
      [slowBefore, network],
    );
    return { open: Number(row?.open ?? 0), lent: Number(row?.lent ?? 0), failing: Number(row?.failing ?? 0) };
  }

  async promisedStake(network: string): Promise<bigint> {
    const [row] = await this.sql<{ total: string | null }>(
      `select sum(d.stake)::text as total from energy_delegations d join outgoing_transfers t on t.id = d.delegate_transfer_id
        where d.network = ? and d.status = 'DELEGATING' and t.included_block is null`,
      [network],
    );
    return BigInt(row?.total ?? '0');
  }

  async unusedLoans(purpose: DelegationPurpose, purposeId: string): Promise<number> {
    const [row] = await this.sql<{ n: string }>(
      `select count(*)::text as n from energy_delegations where purpose = ? and purpose_id = ? and status in ('RECLAIMED', 'CANCELLED') and used_by is null`,
      [purpose, purposeId],
    );
    return Number(row?.n ?? 0);
  }

  async list(network: string, statuses: readonly DelegationStatus[], limit: number): Promise<EnergyDelegation[]> {
    const rows = await this.sql<DelegationRow>(
      `select * from energy_delegations where network = ? and status = any(?::text[]) order by created_at, id limit ?`,
      [network, pgArrayLiteral(statuses), limit],
    );
    return rows.map(toDelegation);
  }

  async fallbackOf(purpose: DelegationPurpose, purposeId: string): Promise<BurnReason | null> {
    const rows = await this.sql<{ reason: BurnReason }>(`select reason from energy_fallbacks where purpose = ? and purpose_id = ?`, [purpose, purposeId]);
    return rows[0]?.reason ?? null;
  }

  async recordFallback(network: string, purpose: DelegationPurpose, purposeId: string, reason: string, at: Date): Promise<boolean> {
    const rows = await this.sql<{ purpose_id: string }>(
      `insert into energy_fallbacks (purpose, purpose_id, network, reason, at) values (?, ?, ?, ?, ?) on conflict do nothing returning purpose_id`,
      [purpose, purposeId, network, reason, at],
    );
    return rows.length === 1;
  }

  async summary(network: string, since: Date): Promise<{ fallbacks: number; reclaimed: number; burnAvoided: bigint }> {
    const [row] = await this.sql<{ fallbacks: string; reclaimed: string; avoided: string | null }>(
      `select (select count(*) from energy_fallbacks where network = ? and at >= ?)::text as fallbacks,
              (select count(*) from energy_delegations where network = ? and status = 'RECLAIMED' and updated_at >= ?)::text as reclaimed,
              (select sum(greatest(d.burn_equivalent - coalesce(t.fee_paid, 0), 0)) from energy_delegations d
                 join outgoing_transfers t on t.id = d.used_by
                where d.network = ? and t.status = 'CONFIRMED' and t.confirmed_at >= ?)::text as avoided`,
      [network, since, network, since, network, since],
    );
    return { fallbacks: Number(row?.fallbacks ?? 0), reclaimed: Number(row?.reclaimed ?? 0), burnAvoided: BigInt(row?.avoided ?? '0') };
  }
}
