// LedgerRepo in PostgreSQL. Posting an entry is one call of ledger_post
// (Migration20261128230000_ledger_post): insert the entry (its unique
// reference makes a second post a no-op), then move each account's cached
// balance, accounts in a fixed order (no deadlocks), and write a posting for
// each. A debit of AVAILABLE or LOCKED is a conditional UPDATE whose row lock
// and WHERE clause keep it from ever going negative under concurrency (no
// read-then-write); a credit, or a move of an account allowed below zero, is
// an upsert. Many entries that debit no guarded account (a scanner step's
// deposit credits) are posted set-based: the entries, each account's summed
// move and the postings in one statement each.
import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound, executeInline } from './sql.js';
import { DomainError } from '../../domain/errors.js';
import { NON_NEGATIVE_KINDS, SERVICE_OWNER, accountKey, type Balance, type JournalEntry, type LedgerAccountKind } from '../../domain/ledger/journal.js';
import { ASSET_SPECS, type Asset, type Network } from '../../domain/money/networks.js';
import type { DailyBalanceChange, LedgerRepo } from '../../domain/ledger/ports.js';

/** The SQLSTATE ledger_post raises when a guarded account would go below zero. */
const INSUFFICIENT = 'WL001';

const STABLECOINS = (Object.keys(ASSET_SPECS) as Asset[]).filter((a) => !ASSET_SPECS[a].native);

export class PgLedgerRepo implements LedgerRepo {
  constructor(private readonly em: EntityManager) {}

  private sql<T extends object>(text: string, params: unknown[]): Promise<T[]> {
    return executeInline<T>(this.em, text, params, this.em.getTransactionContext());
  }

  async post(entry: JournalEntry): Promise<'posted' | 'duplicate'> {
    // Accounts in a fixed order (row locks taken in it: no deadlocks); the entry, each move and its posting in one
    // round trip (ledger_post, Migration20261128230000_ledger_post).
    const postings = [...entry.postings].sort((a, b) => (accountKey(a.account) < accountKey(b.account) ? -1 : 1));
    const column = (f: (p: (typeof postings)[number]) => string) => pgArrayLiteral(postings.map(f));
    try {
      const [row] = await executeBound<{ outcome: 'posted' | 'duplicate' }>(
        this.em,
        `select ledger_post(?::uuid, ?, ?, ?::uuid, ?, ?, ?::timestamptz, ?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::boolean[]) as outcome`,
        [
          entry.id,
          entry.kind,
          entry.reference,
          entry.workspaceId,
          entry.network,
          entry.asset,
          entry.createdAt.toISOString(),
          column((p) => p.account.owner),
          column((p) => p.account.kind),
          column((p) => p.account.network),
          column((p) => p.account.asset),
          column((p) => p.amount.toString()),
          column((p) => String(NON_NEGATIVE_KINDS.has(p.account.kind))),
        ],
      );
      return row!.outcome;
    } catch (err) {
      // A guarded debit the balance does not cover (the transaction is aborted: nothing of the entry stays).
      if ((err as { code?: string }).code === INSUFFICIENT) throw new DomainError('INSUFFICIENT_BALANCE', (err as Error).message);
      throw err;
    }
  }

  async postMany(entries: readonly JournalEntry[]): Promise<('posted' | 'duplicate')[]> {
    // A guarded debit must be judged entry by entry, in order (a later one may rely on an earlier credit).
    if (entries.length <= 1 || entries.some((e) => e.postings.some((p) => p.amount < 0n && NON_NEGATIVE_KINDS.has(p.account.kind)))) {
      const out: ('posted' | 'duplicate')[] = [];
      for (const e of entries) out.push(await this.post(e));
      return out;
    }
    // The first of a reference in the batch is posted (unless already posted), any later one is a duplicate.
    const firstOf = new Map<string, JournalEntry>();
    for (const e of entries) if (!firstOf.has(e.reference)) firstOf.set(e.reference, e);
    const unique = [...firstOf.values()];
    const inserted = await executeBound<{ reference: string }>(
      this.em,
      `insert into journal_entries (id, kind, reference, workspace_id, network, asset, created_at)
       select * from unnest(?::uuid[], ?::text[], ?::text[], ?::uuid[], ?::text[], ?::text[], ?::timestamptz[])
       on conflict (reference) do nothing returning reference`,
      [
        unique.map((e) => e.id),
        unique.map((e) => e.kind),
        unique.map((e) => e.reference),
        unique.map((e) => e.workspaceId),
        unique.map((e) => e.network),
        unique.map((e) => e.asset),
        unique.map((e) => e.createdAt.toISOString()),
      ].map((col) => pgArrayLiteral(col)),
    );
    const posted = new Set(inserted.map((r) => r.reference));
    const fresh = unique.filter((e) => posted.has(e.reference));
    if (fresh.length > 0) {
      // Each account moved once by the sum of its postings, in the order post() takes them (no deadlock between the two).
      const moves = new Map<string, { account: JournalEntry['postings'][number]['account']; amount: bigint }>();
      for (const e of fresh) {
        for (const p of e.postings) {
          const key = accountKey(p.account);
          const m = moves.get(key);
          if (m) m.amount += p.amount;
          else moves.set(key, { account: p.account, amount: p.amount });
        }
      }
      const keys = [...moves.keys()].sort((a, b) => (a < b ? -1 : 1));
      const accounts = keys.map((k) => moves.get(k)!);
      const rows = await executeBound<{ id: number; key: string }>(
        this.em,
        `with moved as (
           insert into ledger_accounts as l (owner, kind, network, asset, balance)
           select owner, kind, network, asset, amount from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[]) with ordinality
             as t(owner, kind, network, asset, amount, ord) order by ord
           on conflict on constraint ledger_accounts_identity_unique do update set balance = l.balance + excluded.balance
           returning id, owner, kind, network, asset)
         select id, owner || '|' || kind || '|' || network || '|' || asset as key from moved`,
        [
          accounts.map((m) => m.account.owner),
          accounts.map((m) => m.account.kind),
          accounts.map((m) => m.account.network),
          accounts.map((m) => m.account.asset),
          accounts.map((m) => m.amount.toString()),
        ].map((col) => pgArrayLiteral(col)),
      );
      const idOf = new Map(rows.map((r) => [r.key, r.id]));
      const postings = fresh.flatMap((e) => e.postings.map((p) => ({ entryId: e.id, accountId: idOf.get(accountKey(p.account)), amount: p.amount })));
      if (postings.some((p) => p.accountId === undefined)) throw new Error('a posting whose account was not moved');
      await executeBound(
        this.em,
        `insert into postings (entry_id, account_id, amount) select * from unnest(?::uuid[], ?::int[], ?::numeric[])`,
        [postings.map((p) => p.entryId), postings.map((p) => p.accountId!), postings.map((p) => p.amount.toString())].map((col) => pgArrayLiteral(col)),
      );
    }
    const seen = new Set<string>();
    return entries.map((e) => {
      const first = !seen.has(e.reference);
      seen.add(e.reference);
      return first && posted.has(e.reference) ? 'posted' : 'duplicate';
    });
  }

  async postedAmong(references: readonly string[]): Promise<Set<string>> {
    if (references.length === 0) return new Set();
    const rows = await this.sql<{ reference: string }>(`select reference from journal_entries where reference = any(?::text[])`, [pgArrayLiteral(references)]);
    return new Set(rows.map((r) => r.reference));
  }

  async serviceBalance(network: Network, asset: Asset, kind: LedgerAccountKind): Promise<bigint> {
    const [row] = await this.sql<{ balance: string }>(`select balance::text from ledger_accounts where owner = ? and kind = ? and network = ? and asset = ?`, [
      SERVICE_OWNER,
      kind,
      network,
      asset,
    ]);
    return BigInt(row?.balance ?? '0');
  }

  async posted(reference: string): Promise<boolean> {
    const rows = await this.sql<{ one: number }>(`select 1 as one from journal_entries where reference = ?`, [reference]);
    return rows.length > 0;
  }

  async balances(workspaceId: string, networks: readonly Network[], filter: { network?: Network; asset?: Asset }): Promise<Balance[]> {
    const nets = filter.network ? networks.filter((n) => n === filter.network) : [...networks];
    if (nets.length === 0) return [];
    // Prepared (a signed GET /v2/balances runs it on every request): one of two fixed texts, with or without the asset.
    const rows = await executeBound<{ network: Network; asset: Asset; available: string; locked: string }>(
      this.em,
      `select network, asset,
              coalesce(sum(balance) filter (where kind = 'AVAILABLE'), 0)::text as available,
              coalesce(sum(balance) filter (where kind = 'LOCKED'), 0)::text as locked
         from ledger_accounts
        where owner = ? and kind in ('AVAILABLE', 'LOCKED') and network = any(?::text[])
          ${filter.asset ? 'and asset = ?' : ''}
        group by network, asset
        order by network, asset`,
      filter.asset ? [workspaceId, pgArrayLiteral(nets), filter.asset] : [workspaceId, pgArrayLiteral(nets)],
      { prepare: true },
    );
    return rows.map((r) => ({ network: r.network, asset: r.asset, available: BigInt(r.available), locked: BigInt(r.locked) }));
  }

  async dailyBalanceChanges(workspaceId: string, networks: readonly Network[], since: Date): Promise<DailyBalanceChange[]> {
    if (networks.length === 0) return [];
    // From the workspace's few accounts to their postings (postings_account_idx), then each entry's time.
    const rows = await this.sql<{ network: Network; asset: Asset; day: string; change: string }>(
      `select a.network, a.asset, to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD') as day, sum(p.amount)::text as change
         from ledger_accounts a
         join postings p on p.account_id = a.id
         join journal_entries e on e.id = p.entry_id
        where a.owner = ? and a.kind in ('AVAILABLE', 'LOCKED') and a.network in (?) and e.created_at >= ?
        group by 1, 2, 3
        order by 1, 2, 3`,
      [workspaceId, [...networks], since],
    );
    return rows.map((r) => ({ network: r.network, asset: r.asset, day: r.day, change: BigInt(r.change) })).filter((r) => r.change !== 0n);
  }

  async volumeUsd(workspaceId: string, networks: readonly Network[], since: Date): Promise<bigint> {
    // Gross of credited deposits (the custody posting) and of consumed
    // withdrawals (the lock posting), less refunded withdrawals (their credit
    // back to available), stablecoins at 1:1 in 6-place units.
    const [row] = await this.sql<{ volume: string }>(
      `select coalesce(sum(-p.amount), 0)::text as volume
         from journal_entries e
         join postings p on p.entry_id = e.id
         join ledger_accounts a on a.id = p.account_id
        where e.workspace_id = ? and e.created_at >= ? and e.network in (?) and e.asset in (?)
          and ((e.kind = 'DEPOSIT_CREDIT' and a.kind = 'TREASURY')
            or (e.kind = 'WITHDRAWAL_CONSUME' and a.kind = 'LOCKED')
            or (e.kind = 'WITHDRAWAL_REFUND' and a.kind = 'AVAILABLE')
            or (e.kind = 'WITHDRAWAL_REFUND_REVERSAL' and a.kind in ('AVAILABLE', 'RECEIVABLE')))`,
      [workspaceId, since, [...networks], STABLECOINS],
    );
    return BigInt(row!.volume);
  }

  async feesCharged(workspaceId: string, networks: readonly Network[], from: Date, to: Date): Promise<Map<Asset, bigint>> {
    // The revenue postings of the workspace's fee-bearing entries (a refund or a reversal posts its fee back, negative).
    const rows = await this.sql<{ asset: Asset; fees: string }>(
      `select e.asset, sum(p.amount)::text as fees
         from journal_entries e
         join postings p on p.entry_id = e.id
         join ledger_accounts a on a.id = p.account_id
        where e.workspace_id = ? and e.created_at >= ? and e.created_at < ? and e.network in (?) and e.asset in (?)
          and e.kind in ('DEPOSIT_CREDIT', 'DEPOSIT_REVERSAL', 'WITHDRAWAL_CONSUME', 'WITHDRAWAL_REFUND', 'WITHDRAWAL_REFUND_REVERSAL') and a.kind = 'REVENUE'
        group by e.asset`,
      [workspaceId, from, to, [...networks], STABLECOINS],
    );
    return new Map(rows.map((r) => [r.asset, BigInt(r.fees)]));
  }
}
