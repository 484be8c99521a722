// TransferRepo in PostgreSQL (ADR 0025): transfers and their attempts, and
// the per-sender nonce row whose lock makes concurrent signers queue. Every
// statement runs in the caller's transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { formatPath, parsePath } from '../../domain/custody/derivation.js';
import type { ChainAsset, Network } from '../../domain/money/networks.js';
import type { OutgoingTransfer, TransferAttempt, TransferKind, TransferStatus } from '../../domain/transfers/outgoing-transfer.js';
import type { TransferCount, TransferRepo } from '../../domain/transfers/ports.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound } from './sql.js';

interface TransferRow {
  id: string;
  kind: TransferKind;
  network: Network;
  asset: ChainAsset;
  from_address: string;
  from_path: string;
  to_address: string;
  amount: string;
  owner_id: string | null;
  gas_limit: string | null;
  fee_cap: string | null;
  status: TransferStatus;
  nonce: string | null;
  included_txid: string | null;
  included_block: string | null;
  included_reverted: boolean | null;
  fee_paid: string | null;
  failure: string | null;
  requested_at: Date;
  broadcast_at: Date | null;
  confirmed_at: Date | null;
}

interface AttemptRow {
  transfer_id: string;
  seq: number;
  txid: string;
  raw: string;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  expires_at: string | null;
  signed_at: Date;
  refused_at: Date | null;
}

// The driver hands timestamps back as text here: every one goes through new Date.
const big = (v: string | null): bigint | null => (v === null ? null : BigInt(v));
const text = (v: bigint | null): string | null => (v === null ? null : v.toString());

const toAttempt = (a: AttemptRow): TransferAttempt => ({
  txid: a.txid,
  raw: a.raw,
  fees:
    a.max_fee_per_gas === null || a.max_priority_fee_per_gas === null
      ? null
      : { maxFeePerGas: BigInt(a.max_fee_per_gas), maxPriorityFeePerGas: BigInt(a.max_priority_fee_per_gas) },
  expiresAt: a.expires_at === null ? null : Number(a.expires_at),
  signedAt: new Date(a.signed_at),
  refusedAt: a.refused_at === null ? null : new Date(a.refused_at),
});

const toTransfer = (r: TransferRow, attempts: AttemptRow[]): OutgoingTransfer => ({
  id: r.id,
  kind: r.kind,
  network: r.network,
  asset: r.asset,
  from: r.from_address,
  fromPath: parsePath(r.from_path),
  to: r.to_address,
  amount: BigInt(r.amount),
  ownerId: r.owner_id,
  gasLimit: big(r.gas_limit),
  feeCap: big(r.fee_cap),
  status: r.status,
  nonce: big(r.nonce),
  attempts: attempts.sort((a, b) => a.seq - b.seq).map(toAttempt),
  included:
    r.included_txid === null || r.included_block === null
      ? null
      : { txid: r.included_txid, blockNumber: BigInt(r.included_block), reverted: r.included_reverted ?? false },
  requestedAt: new Date(r.requested_at),
  broadcastAt: r.broadcast_at === null ? null : new Date(r.broadcast_at),
  confirmedAt: r.confirmed_at === null ? null : new Date(r.confirmed_at),
  failure: r.failure,
  feePaid: big(r.fee_paid),
});

export class PgTransferRepo implements TransferRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(q: string, params: unknown[]): Promise<T[]> {
    return executeBound<T>(this.em, q, params);
  }

  private async withAttempts(rows: TransferRow[]): Promise<OutgoingTransfer[]> {
    if (rows.length === 0) return [];
    const attempts = await this.sql<AttemptRow>(`select * from transfer_attempts where transfer_id = any(?::uuid[])`, [pgArrayLiteral(rows.map((r) => r.id))]);
    return rows.map((r) => toTransfer(r, attempts.filter((a) => a.transfer_id === r.id)));
  }

  async add(t: OutgoingTransfer): Promise<void> {
    await this.sql(
      `insert into outgoing_transfers (id, kind, network, asset, from_address, from_path, to_address, amount, owner_id, gas_limit, fee_cap,
         status, nonce, requested_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [t.id, t.kind, t.network, t.asset, t.from, formatPath(t.fromPath), t.to, t.amount.toString(), t.ownerId, text(t.gasLimit), text(t.feeCap), t.status, text(t.nonce), t.requestedAt, t.requestedAt],
    );
    await this.insertAttempts(t, 0);
  }

  async get(id: string): Promise<OutgoingTransfer | null> {
    const rows = await this.sql<TransferRow>(`select * from outgoing_transfers where id = ?`, [id]);
    return (await this.withAttempts(rows))[0] ?? null;
  }

  async openIds(network: Network, limit: number): Promise<string[]> {
    // Up to `limit` new ones to sign and up to `limit` on their way to follow, each oldest first: transfers
    // waiting on the chain, however many, never keep a new one from being signed.
    const rows = await this.sql<{ id: string }>(
      `(select id, requested_at from outgoing_transfers where network = ? and status = 'REQUESTED' order by requested_at limit ?)
       union all
       (select id, requested_at from outgoing_transfers where network = ? and status not in ('REQUESTED', 'CONFIRMED', 'FAILED') order by requested_at limit ?)
       order by requested_at`,
      [network, limit, network, limit],
    );
    return rows.map((r) => r.id);
  }

  async lock(id: string): Promise<OutgoingTransfer | null> {
    const rows = await this.sql<TransferRow>(`select * from outgoing_transfers where id = ? for update skip locked`, [id]);
    return (await this.withAttempts(rows))[0] ?? null;
  }

  async save(t: OutgoingTransfer): Promise<void> {
    await this.sql(
      `update outgoing_transfers set status = ?, nonce = ?, included_txid = ?, included_block = ?, included_reverted = ?,
         fee_paid = ?, failure = ?, broadcast_at = ?, confirmed_at = ?, updated_at = now()
       where id = ?`,
      [
        t.status,
        text(t.nonce),
        t.included?.txid ?? null,
        t.included ? t.included.blockNumber.toString() : null,
        t.included ? t.included.reverted : null,
        text(t.feePaid),
        t.failure,
        t.broadcastAt,
        t.confirmedAt,
        t.id,
      ],
    );
    const [stored] = await this.sql<{ n: number }>(`select count(*)::int as n from transfer_attempts where transfer_id = ?`, [t.id]);
    await this.insertAttempts(t, stored?.n ?? 0);
    // A refusal is the one change an attempt ever gets (set once).
    for (const a of t.attempts) {
      if (a.refusedAt) await this.sql(`update transfer_attempts set refused_at = ? where transfer_id = ? and txid = ? and refused_at is null`, [a.refusedAt, t.id, a.txid]);
    }
  }

  private async insertAttempts(t: OutgoingTransfer, from: number): Promise<void> {
    for (let seq = from; seq < t.attempts.length; seq++) {
      const a = t.attempts[seq]!;
      await this.sql(
        `insert into transfer_attempts (transfer_id, seq, txid, raw, max_fee_per_gas, max_priority_fee_per_gas, expires_at, signed_at, refused_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          t.id,
          seq,
          a.txid,
          a.raw,
          text(a.fees?.maxFeePerGas ?? null),
          text(a.fees?.maxPriorityFeePerGas ?? null),
          a.expiresAt === null ? null : String(a.expiresAt),
          a.signedAt,
          a.refusedAt ?? null,
        ],
      );
    }
  }

  async takeNonce(network: Network, address: string, minedNonce: bigint): Promise<bigint> {
    const [row] = await this.sql<{ nonce: string }>(
      `insert into sender_nonces (network, address, next_nonce) values (?, ?, ?::numeric + 1)
       on conflict (network, address) do update set next_nonce = greatest(sender_nonces.next_nonce, ?::numeric) + 1
       returning next_nonce - 1 as nonce`,
      [network, address, minedNonce.toString(), minedNonce.toString()],
    );
    return BigInt(row!.nonce);
  }

  async lockOutflow(network: Network, address: string): Promise<void> {
    // A no-op upsert: the row is created when missing (takeNonce still takes the greatest of it and the mined nonce) and locked.
    await this.sql(
      `insert into sender_nonces (network, address, next_nonce) values (?, ?, 0)
       on conflict (network, address) do update set next_nonce = sender_nonces.next_nonce returning next_nonce`,
      [network, address],
    );
  }

  async committedOutflow(network: Network, address: string, nativeAsset: ChainAsset, unsignedGasPrice = 0n): Promise<bigint> {
    const [row] = await this.sql<{ total: string | null }>(
      // Of the Stake 2.0 transactions only a stake takes its amount from the balance; the others move stake, or give TRX back.
      `select sum(case when t.asset = ? and t.kind not in ('ENERGY_DELEGATE', 'ENERGY_RECLAIM', 'ENERGY_UNSTAKE', 'ENERGY_WITHDRAW') then t.amount else 0 end
                  + case when t.gas_limit is null then coalesce(t.fee_cap, 0)
                         else t.gas_limit * coalesce(t.fee_cap, last.max_fee_per_gas, ?::numeric) end)::text as total
       from outgoing_transfers t
       left join lateral (select max_fee_per_gas from transfer_attempts a where a.transfer_id = t.id order by seq desc limit 1) last on true
       where t.network = ? and t.from_address = ? and t.status in ('REQUESTED', 'SIGNED', 'BROADCAST')`,
      [nativeAsset, unsignedGasPrice.toString(), network, address],
    );
    return BigInt(row?.total ?? '0');
  }

  async latestOfKind(network: Network, kind: TransferKind, asset: ChainAsset): Promise<{ status: TransferStatus; failure: string | null; updatedAt: Date } | null> {
    const [row] = await this.sql<{ status: TransferStatus; failure: string | null; updated_at: Date }>(
      `select status, failure, updated_at from outgoing_transfers where network = ? and kind = ? and asset = ? order by requested_at desc, id desc limit 1`,
      [network, kind, asset],
    );
    return row ? { status: row.status, failure: row.failure, updatedAt: new Date(row.updated_at) } : null;
  }

  async pendingAmount(network: Network, address: string, asset: ChainAsset): Promise<bigint> {
    const [row] = await this.sql<{ total: string | null }>(
      `select sum(amount)::text as total from outgoing_transfers
       where network = ? and from_address = ? and asset = ? and status in ('REQUESTED', 'SIGNED', 'BROADCAST')`,
      [network, address, asset],
    );
    return BigInt(row?.total ?? '0');
  }

  async topUpOnItsWay(network: Network, address: string): Promise<boolean> {
    const rows = await this.sql<{ id: string }>(
      `select id from outgoing_transfers where network = ? and to_address = ? and kind = 'GAS_TOPUP' and status not in ('CONFIRMED', 'FAILED') limit 1`,
      [network, address],
    );
    return rows.length > 0;
  }

  async openOfKinds(network: Network, from: string, kinds: readonly TransferKind[]): Promise<OutgoingTransfer[]> {
    const rows = await this.sql<{ id: string }>(
      `select id from outgoing_transfers where network = ? and from_address = ? and kind = any(?::text[]) and status not in ('CONFIRMED', 'FAILED')
       order by requested_at, id`,
      [network, from, pgArrayLiteral(kinds)],
    );
    const out: OutgoingTransfer[] = [];
    for (const r of rows) {
      const t = await this.get(r.id);
      if (t) out.push(t);
    }
    return out;
  }

  async countByKindAndStatus(): Promise<TransferCount[]> {
    const rows = await this.sql<{ network: Network; kind: TransferKind; status: TransferStatus; count: number }>(
      `select network, kind, status, count(*)::int as count from outgoing_transfers group by network, kind, status`,
      [],
    );
    return rows;
  }
}
