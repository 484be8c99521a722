// TreasuryRepo in PostgreSQL (issue 31, ADR 0032): the operator's treasury
// policies (treasury_policies) and the history of their changes
// (treasury_policy_events).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TreasuryPolicyEvent, TreasuryRepo } from '../../domain/custody/ports.js';
import type { TreasuryPolicy } from '../../domain/custody/treasury-policy.js';
import type { Asset, Network } from '../../domain/money/networks.js';
import { executeBound } from './sql.js';

interface PolicyRow {
  network: Network;
  asset: Asset;
  cold_address: string | null;
  ceiling: string;
  target_float: string;
  floor: string;
  cooling_off_hours: number;
  pending_cold_address: string | null;
  pending_cooling_off_hours: number | null;
  pending_requested_at: Date | null;
  pending_effective_at: Date | null;
  updated_at: Date;
}

const COLUMNS = `network, asset, cold_address, ceiling::text, target_float::text, floor::text, cooling_off_hours,
  pending_cold_address, pending_cooling_off_hours, pending_requested_at, pending_effective_at, updated_at`;

const toPolicy = (r: PolicyRow): TreasuryPolicy => ({
  network: r.network,
  asset: r.asset,
  coldAddress: r.cold_address,
  ceiling: BigInt(r.ceiling),
  targetFloat: BigInt(r.target_float),
  floor: BigInt(r.floor),
  coolingOffHours: r.cooling_off_hours,
  pending:
    r.pending_cold_address === null || r.pending_requested_at === null || r.pending_effective_at === null
      ? null
      : {
          coldAddress: r.pending_cold_address,
          coolingOffHours: r.pending_cooling_off_hours ?? r.cooling_off_hours,
          requestedAt: new Date(r.pending_requested_at),
          effectiveAt: new Date(r.pending_effective_at),
        },
  updatedAt: new Date(r.updated_at),
});

export class PgTreasuryRepo implements TreasuryRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[] = []): Promise<T[]> {
    return executeBound<T>(this.em, text, params);
  }

  async policies(): Promise<TreasuryPolicy[]> {
    return (await this.sql<PolicyRow>(`select ${COLUMNS} from treasury_policies order by network, asset`)).map(toPolicy);
  }

  async policyForUpdate(network: Network, asset: Asset): Promise<TreasuryPolicy | null> {
    const [row] = await this.sql<PolicyRow>(`select ${COLUMNS} from treasury_policies where network = ? and asset = ? for update`, [network, asset]);
    return row ? toPolicy(row) : null;
  }

  async savePolicy(p: TreasuryPolicy): Promise<void> {
    await this.sql(
      `insert into treasury_policies (network, asset, cold_address, ceiling, target_float, floor, cooling_off_hours,
         pending_cold_address, pending_cooling_off_hours, pending_requested_at, pending_effective_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (network, asset) do update set cold_address = excluded.cold_address, ceiling = excluded.ceiling,
         target_float = excluded.target_float, floor = excluded.floor, cooling_off_hours = excluded.cooling_off_hours,
         pending_cold_address = excluded.pending_cold_address, pending_cooling_off_hours = excluded.pending_cooling_off_hours,
         pending_requested_at = excluded.pending_requested_at, pending_effective_at = excluded.pending_effective_at,
         updated_at = excluded.updated_at`,
      [
        p.network,
        p.asset,
        p.coldAddress,
        p.ceiling.toString(),
        p.targetFloat.toString(),
        p.floor.toString(),
        p.coolingOffHours,
        p.pending?.coldAddress ?? null,
        p.pending?.coolingOffHours ?? null,
        p.pending?.requestedAt ?? null,
        p.pending?.effectiveAt ?? null,
        p.updatedAt,
      ],
    );
  }

  async record(e: TreasuryPolicyEvent): Promise<void> {
    await this.sql(`insert into treasury_policy_events (id, network, asset, kind, detail, at) values (?, ?, ?, ?, ?::jsonb, ?)`, [
      randomUUID(),
      e.network,
      e.asset,
      e.kind,
      JSON.stringify(e.detail),
      e.at,
    ]);
  }

  async refillCursorForUpdate(network: Network): Promise<bigint | null> {
    const [row] = await this.sql<{ next_block: string }>(`select next_block::text from refill_cursors where network = ? for update`, [network]);
    return row ? BigInt(row.next_block) : null;
  }

  async setRefillCursor(network: Network, next: bigint, at: Date): Promise<void> {
    await this.sql(
      `insert into refill_cursors (network, next_block, updated_at) values (?, ?, ?)
       on conflict (network) do update set next_block = excluded.next_block, updated_at = excluded.updated_at`,
      [network, next.toString(), at],
    );
  }

  async history(network: Network, asset: Asset, limit: number): Promise<TreasuryPolicyEvent[]> {
    const rows = await this.sql<{ kind: TreasuryPolicyEvent['kind']; detail: Record<string, string | number | null>; at: Date }>(
      `select kind, detail, at from treasury_policy_events where network = ? and asset = ? order by at desc, id limit ?`,
      [network, asset, limit],
    );
    return rows.map((r) => ({ network, asset, kind: r.kind, detail: r.detail, at: new Date(r.at) }));
  }
}
