// FaucetRepo in PostgreSQL (tables of entities/faucet-entities.ts): a drip
// and its items are written and read together; the workspace's drip
// requests are serialised by a transaction-scoped advisory lock, under which
// the rate and the budgets are read and the drip written.
import type { EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_FAUCET_LIMITS, type Drip, type DripLine, type DripStatus, type FaucetAssetLimit, type FaucetLimits } from '../../domain/faucet/faucet.js';
import type { FaucetRepo } from '../../domain/faucet/ports.js';
import { ASSETS, type Asset, type Network } from '../../domain/money/networks.js';
import { lockUntilCommit } from './advisory-lock.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound } from './sql.js';
import { rowDate } from './rows.js';

interface DripRow {
  id: string;
  workspace_id: string;
  network: Network;
  wallet_id: string;
  address: string;
  status: Drip['status'];
  created_at: Date | string;
  updated_at: Date | string;
}

interface ItemRow {
  drip_id: string;
  seq: number;
  asset: Asset;
  amount: string;
  status: DripLine['status'];
  transfer_id: string | null;
}

export class PgFaucetRepo implements FaucetRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(q: string, params: unknown[]): Promise<T[]> {
    return executeBound<T>(this.em, q, params);
  }

  async lockWorkspace(workspaceId: string): Promise<void> {
    await lockUntilCommit(this.em, `faucet:${workspaceId}`);
  }

  async lockDispenser(network: Network): Promise<void> {
    await lockUntilCommit(this.em, `faucet-dispenser:${network}`);
  }

  async add(d: Drip): Promise<void> {
    await this.sql(
      `insert into faucet_drips (id, workspace_id, network, wallet_id, address, status, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)`,
      [d.id, d.workspaceId, d.network, d.walletId, d.address, d.status, d.createdAt, d.updatedAt],
    );
    await this.sql(
      `insert into faucet_drip_items (drip_id, seq, asset, amount, status, transfer_id) values ${d.items.map(() => '(?, ?, ?, ?::numeric, ?, ?::uuid)').join(', ')}`,
      d.items.flatMap((item, seq) => [d.id, seq, item.asset, item.amount.toString(), item.status, item.transferId]),
    );
  }

  async get(workspaceId: string, networks: readonly Network[], id: string): Promise<Drip | null> {
    if (networks.length === 0) return null;
    const rows = await this.sql<DripRow>(`select * from faucet_drips where id = ? and workspace_id = ? and network = any(?::text[])`, [id, workspaceId, pgArrayLiteral(networks)]);
    return this.withItems(rows[0]);
  }

  async statusOf(id: string): Promise<DripStatus | null> {
    const rows = await this.sql<{ status: DripStatus }>(`select status from faucet_drips where id = ?`, [id]);
    return rows[0]?.status ?? null;
  }

  async lock(id: string): Promise<Drip | null> {
    const rows = await this.sql<DripRow>(`select * from faucet_drips where id = ? for update`, [id]);
    return this.withItems(rows[0]);
  }

  async save(d: Drip): Promise<void> {
    await this.sql(`update faucet_drips set status = ?, updated_at = ? where id = ?`, [d.status, d.updatedAt, d.id]);
    for (const [seq, item] of d.items.entries()) {
      await this.sql(`update faucet_drip_items set status = ?, transfer_id = ?::uuid where drip_id = ? and seq = ?`, [item.status, item.transferId, d.id, seq]);
    }
  }

  async countSince(workspaceId: string, since: Date): Promise<number> {
    const [row] = await this.sql<{ n: string }>(`select count(*)::text as n from faucet_drips where workspace_id = ? and created_at > ?`, [workspaceId, since]);
    return Number(row?.n ?? 0);
  }

  async givenSince(workspaceId: string, since: Date): Promise<Map<Asset, bigint>> {
    const rows = await this.sql<{ asset: Asset; total: string }>(
      `select i.asset, sum(i.amount)::text as total from faucet_drip_items i join faucet_drips d on d.id = i.drip_id
        where d.workspace_id = ? and d.created_at > ? and i.status <> 'FAILED'
        group by i.asset`,
      [workspaceId, since],
    );
    return new Map(rows.map((r) => [r.asset, BigInt(r.total)]));
  }

  async queuedAmount(network: Network, asset: Asset): Promise<bigint> {
    const [row] = await this.sql<{ total: string }>(
      `select coalesce(sum(i.amount), 0)::text as total from faucet_drip_items i join faucet_drips d on d.id = i.drip_id
        where d.network = ? and i.asset = ? and i.status = 'QUEUED' and i.transfer_id is null`,
      [network, asset],
    );
    return BigInt(row?.total ?? '0');
  }

  async queuedIds(network: Network, limit: number): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(
      `select d.id from faucet_drips d where d.network = ? and d.status in ('QUEUED', 'SENDING')
          and exists (select 1 from faucet_drip_items i where i.drip_id = d.id and i.status = 'QUEUED')
        order by d.created_at limit ?`,
      [network, limit],
    );
    return rows.map((r) => r.id);
  }

  async byTransfer(transferId: string): Promise<Drip | null> {
    const rows = await this.sql<DripRow>(`select d.* from faucet_drips d join faucet_drip_items i on i.drip_id = d.id where i.transfer_id = ? for update of d`, [transferId]);
    return this.withItems(rows[0]);
  }

  async limits(): Promise<FaucetLimits> {
    const [settings] = await this.sql<{ max_items: number; drips_per_hour: number }>(`select max_items, drips_per_hour from faucet_settings where id = 1`, []);
    const assets = await this.sql<{ asset: string; default_amount: string; cap: string; budget: string | null }>(
      `select asset, default_amount::text, cap::text, budget::text from faucet_asset_limits`,
      [],
    );
    const limits: FaucetLimits = {
      maxItems: settings?.max_items ?? DEFAULT_FAUCET_LIMITS.maxItems,
      dripsPerHour: settings?.drips_per_hour ?? DEFAULT_FAUCET_LIMITS.dripsPerHour,
      assets: { ...DEFAULT_FAUCET_LIMITS.assets },
    };
    for (const a of assets) {
      if (!(ASSETS as readonly string[]).includes(a.asset)) continue;
      limits.assets[a.asset as Asset] = { defaultAmount: BigInt(a.default_amount), cap: BigInt(a.cap), budget: a.budget === null ? null : BigInt(a.budget) };
    }
    return limits;
  }

  async setAssetLimit(asset: Asset, limit: FaucetAssetLimit, at: Date): Promise<void> {
    await this.sql(
      `insert into faucet_asset_limits (asset, default_amount, cap, budget, updated_at) values (?, ?::numeric, ?::numeric, ?::numeric, ?)
       on conflict (asset) do update set default_amount = excluded.default_amount, cap = excluded.cap, budget = excluded.budget, updated_at = excluded.updated_at`,
      [asset, limit.defaultAmount.toString(), limit.cap.toString(), limit.budget === null ? null : limit.budget.toString(), at],
    );
  }

  async setSettings(settings: Pick<FaucetLimits, 'maxItems' | 'dripsPerHour'>, at: Date): Promise<void> {
    await this.sql(
      `insert into faucet_settings (id, max_items, drips_per_hour, updated_at) values (1, ?, ?, ?)
       on conflict (id) do update set max_items = excluded.max_items, drips_per_hour = excluded.drips_per_hour, updated_at = excluded.updated_at`,
      [settings.maxItems, settings.dripsPerHour, at],
    );
  }

  async configuredAssets(): Promise<Asset[]> {
    const rows = await this.sql<{ asset: Asset }>(`select asset from faucet_asset_limits order by asset`, []);
    return rows.map((r) => r.asset);
  }

  private async withItems(row: DripRow | undefined): Promise<Drip | null> {
    if (!row) return null;
    const items = await this.sql<ItemRow>(`select * from faucet_drip_items where drip_id = ? order by seq`, [row.id]);
    return {
      id: row.id,
      workspaceId: row.workspace_id,
      network: row.network,
      walletId: row.wallet_id,
      address: row.address,
      status: row.status,
      items: items.map((i) => ({ asset: i.asset, amount: BigInt(i.amount), status: i.status, transferId: i.transfer_id })),
      createdAt: rowDate(row.created_at),
      updatedAt: rowDate(row.updated_at),
    };
  }
}
