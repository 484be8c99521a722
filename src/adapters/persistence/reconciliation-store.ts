// ReconciliationStore in PostgreSQL (issue 30, docs/operations.md#reconciliation-with-the-chain):
// the books' side of each asset at a block, read in one pass over the ledger, the
// deposits and the outgoing transfers; the runs; and the payout holds.
import type { MikroORM } from '@mikro-orm/postgresql';
import { SERVICE_OWNER } from '../../domain/ledger/journal.js';
import type { Acknowledged, AssetReconciliation, InvolvedItem, ReconciliationStore } from '../../domain/ledger/reconciliation.js';
import { ASSET_SPECS, gasCurrencyOf, type Asset, type ChainAsset, type Network } from '../../domain/money/networks.js';
import { executeInline } from './sql.js';

/** API units of `asset` in chain base units (TRX, booked in sun, is already). */
const toChain = (asset: ChainAsset, units: bigint): bigint => {
  const spec = ASSET_SPECS[asset as Asset];
  return spec ? units * 10n ** BigInt(spec.chainDecimals - spec.apiDecimals) : units;
};

/** Recent wallets without a deposit whose balance each run reads (the newest first). */
const QUIET_WALLETS_CHECKED = 200;

export class PgReconciliationStore implements ReconciliationStore {
  constructor(private readonly orm: MikroORM) {}

  private sql<T extends object>(text: string, params: unknown[] = []): Promise<T[]> {
    return executeInline<T>(this.orm.em, text, params, undefined);
  }

  async basis(network: Network, block: bigint, assets: readonly ChainAsset[], since: Date) {
    const b = block.toString();
    const perAsset = async (text: string, params: unknown[]) => new Map((await this.sql<{ asset: string; n: string }>(text, params)).map((r) => [r.asset, BigInt(r.n)]));
    const [custody, bookedOut, creditedAfter, detected, gas] = await Promise.all([
      perAsset(
        `select asset, (-sum(balance))::text as n from ledger_accounts where owner = ? and kind in ('TREASURY', 'FAUCET') and network = ? group by asset`,
        [SERVICE_OWNER, network],
      ),
      // Withdrawals consumed at broadcast (net out of custody), and forwards to cold storage booked out when
      // requested (ADR 0032), whose transaction is in no block up to the run's yet.
      perAsset(
        `select asset, sum(amount)::text as n from (
           select t.asset, t.amount from withdrawals w join outgoing_transfers t on t.id = w.transfer_id
            where w.network = ? and w.status in ('PROCESSING', 'CONFIRMING', 'CONFIRMED') and (t.included_block is null or t.included_block > ?)
           union all
           select asset, amount from outgoing_transfers
            where network = ? and kind = 'COLD_FORWARD' and status <> 'FAILED' and (included_block is null or included_block > ?)
         ) out group by asset`,
        [network, b, network, b],
      ),
      perAsset(`select asset, sum(amount)::text as n from deposits where network = ? and status in ('CONFIRMED', 'SWEPT') and block_number > ? group by asset`, [network, b]),
      perAsset(`select asset, sum(amount)::text as n from deposits where network = ? and status = 'DETECTED' and block_number <= ? group by asset`, [network, b]),
      // Fees of transfers in a block up to the run's that have not ended (booked when they do).
      perAsset(`select ? as asset, coalesce(sum(fee_paid), 0)::text as n from outgoing_transfers where network = ? and status = 'CONFIRMING' and included_block <= ?`, [
        gasCurrencyOf(network),
        network,
        b,
      ]),
    ]);
    const bases = assets.map((asset) => ({
      asset,
      custody: toChain(asset, custody.get(asset) ?? 0n),
      bookedOutNotMined: bookedOut.get(asset) ?? 0n,
      creditedAfterBlock: toChain(asset, creditedAfter.get(asset) ?? 0n),
      detectedNotCredited: toChain(asset, detected.get(asset) ?? 0n),
      gasNotBooked: gas.get(asset) ?? 0n,
    }));
    const addresses = await this.sql<{ address: string }>(
      `select distinct to_address as address from deposits where network = ? and status in ('DETECTED', 'CONFIRMED')
       union
       select from_address from outgoing_transfers where network = ? and kind = 'SWEEP' and status not in ('CONFIRMED', 'FAILED')
       union
       select to_address from outgoing_transfers where network = ? and kind = 'GAS_TOPUP' and status not in ('CONFIRMED', 'FAILED')`,
      [network, network, network],
    );
    // Each deposit address on its own, unless a sweep of it is on its way (its balance is moving).
    const held = await this.sql<{ address: string; asset: ChainAsset; n: string }>(
      `select d.to_address as address, d.asset, sum(d.chain_amount)::text as n from deposits d
        where d.network = ? and d.status in ('DETECTED', 'CONFIRMING', 'CONFIRMED') and d.block_number <= ?
          and not exists (select 1 from outgoing_transfers t where t.network = d.network and t.kind = 'SWEEP'
                            and t.from_address = d.to_address and t.status not in ('CONFIRMED', 'FAILED'))
        group by d.to_address, d.asset`,
      [network, b],
    );
    const quiet = await this.sql<{ address: string; asset: ChainAsset }>(
      `select w.address, w.asset from wallets w
        where w.network = ? and w.created_at >= ? and not exists (select 1 from deposits d where d.wallet_id = w.id)
        order by w.created_at desc limit ${QUIET_WALLETS_CHECKED}`,
      [network, since],
    );
    return {
      bases,
      depositAddresses: addresses.map((a) => a.address),
      held: held.map((h) => ({ address: h.address, asset: h.asset, expected: BigInt(h.n) })),
      quiet,
    };
  }

  async failedTransfers(network: Network, since: Date, limit: number) {
    const rows = await this.sql<{ id: string; kind: string; owner_id: string | null; asset: ChainAsset; amount: string; txids: string[] }>(
      `select t.id, t.kind, t.owner_id, t.asset, t.amount::text as amount, array_agg(a.txid order by a.seq) as txids
         from outgoing_transfers t join transfer_attempts a on a.transfer_id = t.id
        where t.network = ? and t.status = 'FAILED' and t.updated_at >= ?
          -- A withdrawal an operator found paid (ops withdrawal paid): its books are right again.
          and not exists (select 1 from journal_entries j where j.reference = 'withdrawal:' || t.owner_id || ':refund-reversal')
        group by t.id order by t.updated_at desc limit ?`,
      [network, since, limit],
    );
    return rows.map((r) => ({ id: r.id, kind: r.kind, ownerId: r.owner_id, asset: r.asset, amount: BigInt(r.amount), txids: r.txids }));
  }

  async creditedDeposits(network: Network, asset: ChainAsset, since: Date, limit: number) {
    const rows = await this.sql<{ id: string; txid: string; amount: string }>(
      `select id, txid, amount::text as amount from deposits
        where network = ? and asset = ? and status in ('CONFIRMED', 'SWEPT') and confirmed_at >= ? order by confirmed_at desc limit ?`,
      [network, asset, since, limit],
    );
    return rows.map((r) => ({ id: r.id, txid: r.txid, amount: toChain(asset, BigInt(r.amount)) }));
  }

  async previousDeficits(network: Network): Promise<Set<ChainAsset>> {
    const rows = await this.sql<{ asset: ChainAsset; difference: string; short: boolean }>(
      `select distinct on (asset) asset, difference::text as difference, involved @> '[{"kind": "address"}]'::jsonb as short
         from chain_reconciliations where network = ? order by asset, at desc`,
      [network],
    );
    return new Set(rows.filter((r) => BigInt(r.difference) < 0n || r.short).map((r) => r.asset));
  }

  async record(runs: AssetReconciliation[], involved: InvolvedItem[], id: () => string, at: Date): Promise<void> {
    for (const r of runs) {
      const mine = involved.filter((i) => i.asset === r.asset).map((i) => ({ ...i, amount: i.amount.toString() }));
      await this.sql(
        `insert into chain_reconciliations (id, network, asset, block, expected, on_chain, difference, involved, at) values (?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)`,
        [id(), r.network, r.asset, r.block.toString(), r.expected.toString(), r.onChain.toString(), r.difference.toString(), JSON.stringify(mine), at],
      );
    }
  }

  async hold(network: Network, reason: string, at: Date): Promise<boolean> {
    const rows = await this.sql<{ network: string }>(
      `insert into payout_holds (network, reason, held_at) values (?, ?, ?) on conflict (network) do nothing returning network`,
      [network, reason.slice(0, 2000), at],
    );
    return rows.length > 0;
  }

  async release(network: Network, at: Date): Promise<boolean> {
    return this.orm.em.getConnection().transactional(async (trx) => {
      const rows = await executeInline<{ network: string }>(this.orm.em, `delete from payout_holds where network = ? returning network`, [network], trx);
      if (rows.length === 0) return false;
      // The latest run of each asset is what the operator looked at.
      await executeInline(
        this.orm.em,
        `insert into reconciliation_acks (network, asset, difference, items, at)
         select distinct on (asset) network, asset, least(difference, 0),
                coalesce((select jsonb_agg((i->>'kind') || ':' || (i->>'id')) from jsonb_array_elements(involved) i), '[]'::jsonb), ?
           from chain_reconciliations where network = ? order by asset, at desc
         on conflict (network, asset) do update set difference = excluded.difference, items = excluded.items, at = excluded.at`,
        [at, network],
        trx,
      );
      return true;
    });
  }

  async forgetDeficits(network: Network, assets: readonly ChainAsset[]): Promise<void> {
    if (assets.length === 0) return;
    await this.sql(`update reconciliation_acks set difference = 0 where network = ? and asset = any(?::text[]) and difference <> 0`, [network, `{${assets.join(',')}}`]);
  }

  async acknowledged(network: Network): Promise<Map<ChainAsset, Acknowledged>> {
    const rows = await this.sql<{ asset: ChainAsset; difference: string; items: string[] }>(
      `select asset, difference::text as difference, items from reconciliation_acks where network = ?`,
      [network],
    );
    return new Map(rows.map((r) => [r.asset, { difference: BigInt(r.difference), items: new Set(r.items) }]));
  }

  async holds(): Promise<{ network: Network; reason: string; heldAt: Date }[]> {
    const rows = await this.sql<{ network: Network; reason: string; held_at: Date }>(`select network, reason, held_at from payout_holds order by network`);
    return rows.map((r) => ({ network: r.network, reason: r.reason, heldAt: new Date(r.held_at) }));
  }

  async isHeld(network: Network): Promise<boolean> {
    return (await this.sql(`select 1 from payout_holds where network = ?`, [network])).length > 0;
  }
}
