// CommitmentRepo and FxRateRepo in PostgreSQL (tables of
// entities/commitment-entities.ts). A commitment is read with its pauses; a
// month's adjustment is unique per commitment, so settling a month twice
// writes nothing the second time.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Adjustment, Commitment, Month, Pause } from '../../domain/commitments/commitment.js';
import type { CommitmentRepo, FxRateRepo } from '../../domain/commitments/ports.js';
import { lockUntilCommit } from './advisory-lock.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound } from './sql.js';
import { rowDate } from './rows.js';

interface CommitmentRow {
  id: string;
  workspace_id: string;
  monthly_floor: string;
  settlement_asset: Commitment['settlementAsset'];
  starts_at: Date | string;
  ends_at: Date | string | null;
  status: Commitment['status'];
  auto_debit: boolean;
  contract_reference: string;
  created_at: Date | string;
  updated_at: Date | string;
}

interface AdjustmentRow {
  id: string;
  commitment_id: string;
  workspace_id: string;
  period_start: Date | string;
  period_end: Date | string;
  days_covered: number;
  prorated_floor: string;
  billed_fees: string;
  delta: string;
  recovery_mode: Adjustment['recoveryMode'];
  debited: string;
  outstanding: string;
  status: Adjustment['status'];
  settled_at: Date | string | null;
  eurc_usd_ppm: string | null;
  created_at: Date | string;
}

const nullableDate = (v: Date | string | null): Date | null => (v === null ? null : rowDate(v));

const adjustmentOf = (r: AdjustmentRow): Adjustment => ({
  id: r.id,
  commitmentId: r.commitment_id,
  workspaceId: r.workspace_id,
  periodStart: rowDate(r.period_start),
  periodEnd: rowDate(r.period_end),
  daysCovered: r.days_covered,
  proratedFloor: BigInt(r.prorated_floor),
  billedFees: BigInt(r.billed_fees),
  delta: BigInt(r.delta),
  recoveryMode: r.recovery_mode,
  debited: BigInt(r.debited),
  outstanding: BigInt(r.outstanding),
  status: r.status,
  settledAt: nullableDate(r.settled_at),
  eurcUsdPpm: r.eurc_usd_ppm === null ? null : BigInt(r.eurc_usd_ppm),
  createdAt: rowDate(r.created_at),
});

export class PgCommitmentRepo implements CommitmentRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(q: string, params: unknown[]): Promise<T[]> {
    return executeBound<T>(this.em, q, params);
  }

  private async withPauses(rows: CommitmentRow[]): Promise<Commitment[]> {
    if (rows.length === 0) return [];
    const pauses = await this.sql<{ commitment_id: string; from_at: Date | string; until_at: Date | string | null }>(
      `select commitment_id, from_at, until_at from commitment_pauses where commitment_id = any(?::uuid[]) order by commitment_id, seq`,
      [pgArrayLiteral(rows.map((r) => r.id))],
    );
    return rows.map((r) => ({
      id: r.id,
      workspaceId: r.workspace_id,
      monthlyFloor: BigInt(r.monthly_floor),
      settlementAsset: r.settlement_asset,
      startsAt: rowDate(r.starts_at),
      endsAt: nullableDate(r.ends_at),
      status: r.status,
      autoDebit: r.auto_debit,
      contractReference: r.contract_reference,
      pauses: pauses.filter((p) => p.commitment_id === r.id).map((p): Pause => ({ from: rowDate(p.from_at), until: nullableDate(p.until_at) })),
      createdAt: rowDate(r.created_at),
      updatedAt: rowDate(r.updated_at),
    }));
  }

  async lockWorkspace(workspaceId: string): Promise<void> {
    await lockUntilCommit(this.em, `commitment:${workspaceId}`);
  }

  async add(c: Commitment): Promise<void> {
    await this.sql(
      `insert into commitments (id, workspace_id, monthly_floor, settlement_asset, starts_at, ends_at, status, auto_debit, contract_reference, created_at, updated_at)
       values (?, ?, ?::numeric, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [c.id, c.workspaceId, c.monthlyFloor.toString(), c.settlementAsset, c.startsAt, c.endsAt, c.status, c.autoDebit, c.contractReference, c.createdAt, c.updatedAt],
    );
    await this.savePauses(c);
  }

  async lock(id: string): Promise<Commitment | null> {
    const rows = await this.sql<CommitmentRow>(`select * from commitments where id = ? for update`, [id]);
    return (await this.withPauses(rows))[0] ?? null;
  }

  async save(c: Commitment): Promise<void> {
    await this.sql(`update commitments set status = ?, ends_at = ?, updated_at = ? where id = ?`, [c.status, c.endsAt, c.updatedAt, c.id]);
    await this.savePauses(c);
  }

  private async savePauses(c: Commitment): Promise<void> {
    await this.sql(`delete from commitment_pauses where commitment_id = ?`, [c.id]);
    for (const [seq, p] of c.pauses.entries()) {
      await this.sql(`insert into commitment_pauses (commitment_id, seq, from_at, until_at) values (?, ?, ?, ?)`, [c.id, seq, p.from, p.until]);
    }
  }

  async ofWorkspace(workspaceId: string): Promise<Commitment[]> {
    const rows = await this.sql<CommitmentRow>(`select * from commitments where workspace_id = ? order by starts_at desc, created_at desc`, [workspaceId]);
    return this.withPauses(rows);
  }

  async coveringIds(month: Month): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(
      `select id from commitments where starts_at < ? and (ends_at is null or ends_at > ?) order by created_at`,
      [month.end, month.start],
    );
    return rows.map((r) => r.id);
  }

  async addAdjustment(a: Adjustment): Promise<boolean> {
    const rows = await this.sql<{ id: string }>(
      `insert into commitment_adjustments (id, commitment_id, workspace_id, period_start, period_end, days_covered, prorated_floor, billed_fees, delta,
         recovery_mode, debited, outstanding, status, settled_at, eurc_usd_ppm, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?::numeric, ?::numeric, ?::numeric, ?, ?::numeric, ?::numeric, ?, ?, ?::numeric, ?, ?)
       on conflict (commitment_id, period_start) do nothing returning id`,
      [
        a.id,
        a.commitmentId,
        a.workspaceId,
        a.periodStart,
        a.periodEnd,
        a.daysCovered,
        a.proratedFloor.toString(),
        a.billedFees.toString(),
        a.delta.toString(),
        a.recoveryMode,
        a.debited.toString(),
        a.outstanding.toString(),
        a.status,
        a.settledAt,
        a.eurcUsdPpm?.toString() ?? null,
        a.createdAt,
        a.createdAt,
      ],
    );
    return rows.length === 1;
  }

  async lockAdjustment(commitmentId: string, periodStart: Date): Promise<Adjustment | null> {
    const rows = await this.sql<AdjustmentRow>(`select * from commitment_adjustments where commitment_id = ? and period_start = ? for update`, [commitmentId, periodStart]);
    return rows[0] ? adjustmentOf(rows[0]) : null;
  }

  async lockAdjustmentById(id: string): Promise<Adjustment | null> {
    const rows = await this.sql<AdjustmentRow>(`select * from commitment_adjustments where id = ? for update`, [id]);
    return rows[0] ? adjustmentOf(rows[0]) : null;
  }

  async saveAdjustment(a: Adjustment): Promise<void> {
    await this.sql(`update commitment_adjustments set debited = ?::numeric, outstanding = ?::numeric, status = ?, settled_at = ?, updated_at = now() where id = ?`, [
      a.debited.toString(),
      a.outstanding.toString(),
      a.status,
      a.settledAt,
      a.id,
    ]);
  }

  async adjustments(workspaceId: string, limit: number): Promise<Adjustment[]> {
    const rows = await this.sql<AdjustmentRow>(`select * from commitment_adjustments where workspace_id = ? order by period_start desc, created_at desc limit ?`, [workspaceId, limit]);
    return rows.map(adjustmentOf);
  }

  async outstandingTotal(workspaceId: string): Promise<bigint> {
    const [row] = await this.sql<{ total: string }>(`select coalesce(sum(outstanding), 0)::text as total from commitment_adjustments where workspace_id = ? and status = 'OPEN'`, [workspaceId]);
    return BigInt(row?.total ?? '0');
  }

  async owes(commitmentId: string): Promise<boolean> {
    const rows = await this.sql<{ one: number }>(`select 1 as one from commitment_adjustments where commitment_id = ? and status = 'OPEN' and outstanding > 0 limit 1`, [commitmentId]);
    return rows.length > 0;
  }

  async recoverable(limit: number): Promise<{ commitmentId: string; periodStart: Date }[]> {
    const rows = await this.sql<{ commitment_id: string; period_start: Date | string }>(
      `select commitment_id, period_start from commitment_adjustments where status = 'OPEN' and recovery_mode = 'AUTO_DEBIT' and outstanding > 0
        order by period_start, commitment_id limit ?`,
      [limit],
    );
    return rows.map((r) => ({ commitmentId: r.commitment_id, periodStart: rowDate(r.period_start) }));
  }
}

export class PgFxRateRepo implements FxRateRepo {
  constructor(private readonly em: EntityManager) {}

  async rate(pair: 'EURC_USD'): Promise<{ ppm: bigint; setAt: Date } | null> {
    const [row] = await executeBound<{ ppm: string; set_at: Date | string }>(this.em, `select ppm::text, set_at from fx_rates where pair = ?`, [pair]);
    return row ? { ppm: BigInt(row.ppm), setAt: rowDate(row.set_at) } : null;
  }

  async setRate(pair: 'EURC_USD', ppm: bigint, at: Date): Promise<void> {
    await executeBound(
      this.em,
      `insert into fx_rates (pair, ppm, set_at) values (?, ?::numeric, ?) on conflict (pair) do update set ppm = excluded.ppm, set_at = excluded.set_at`,
      [pair, ppm.toString(), at],
    );
  }
}
