// The reconciliation of `ops ledger check`: every entry balances and has two
// postings or more, every cached balance equals the sum of its postings, no
// AVAILABLE or LOCKED balance is negative, and per network and asset what
// customers are owed is covered by what the service holds: hot, cold and in
// transit to cold (ADR 0032).
import type { MikroORM } from '@mikro-orm/postgresql';
import { gasCurrencyOf, type Network } from '../../domain/money/networks.js';
import type { CustodyCoverage, LedgerAudit, LedgerCheckReport } from '../../domain/ledger/ports.js';

export class PgLedgerAudit implements LedgerAudit {
  constructor(private readonly orm: MikroORM) {}

  async check(): Promise<LedgerCheckReport> {
    const conn = this.orm.em.getConnection();
    const [counts] = await conn.execute<{ entries: number; accounts: number }[]>(
      `select (select count(*) from journal_entries)::int as entries, (select count(*) from ledger_accounts)::int as accounts`,
    );
    const unbalanced = await conn.execute<{ reference: string; sum: string; postings: number }[]>(
      `select e.reference, coalesce(sum(p.amount), 0)::text as sum, count(p.id)::int as postings
         from journal_entries e left join postings p on p.entry_id = e.id
        group by e.id, e.reference
       having coalesce(sum(p.amount), 0) <> 0 or count(p.id) < 2
        order by e.reference`,
    );
    const mismatches = await conn.execute<{ account: string; cached: string; from_entries: string }[]>(
      `select a.owner || '/' || a.kind || '/' || a.network || '/' || a.asset as account,
              a.balance::text as cached, coalesce(sum(p.amount), 0)::text as from_entries
         from ledger_accounts a left join postings p on p.account_id = a.id
        group by a.id
       having a.balance <> coalesce(sum(p.amount), 0)
        order by account`,
    );
    const negatives = await conn.execute<{ account: string; balance: string }[]>(
      `select owner || '/' || kind || '/' || network || '/' || asset as account, balance::text as balance
         from ledger_accounts where kind in ('AVAILABLE', 'LOCKED') and balance < 0 order by account`,
    );
    const sums = await conn.execute<{ network: Network; asset: string; kind: string; total: string }[]>(
      `select network, asset, kind, sum(balance)::text as total from ledger_accounts group by network, asset, kind order by network, asset, kind`,
    );
    const custody = coverage(sums);
    return {
      ok: unbalanced.length === 0 && mismatches.length === 0 && negatives.length === 0 && custody.every((c) => c.covered || c.gasCurrency),
      custody,
      entries: counts!.entries,
      accounts: counts!.accounts,
      unbalancedEntries: unbalanced,
      balanceMismatches: mismatches.map((m) => ({ account: m.account, cached: m.cached, fromEntries: m.from_entries })),
      negativeBalances: negatives,
    };
  }
}

/** Per network and asset, from the sums of its account kinds (credit positive: an asset held is a negative balance). */
function coverage(sums: { network: Network; asset: string; kind: string; total: string }[]): CustodyCoverage[] {
  const by = new Map<string, Map<string, bigint>>();
  for (const r of sums) {
    const key = `${r.network}|${r.asset}`;
    if (!by.has(key)) by.set(key, new Map());
    by.get(key)!.set(r.kind, BigInt(r.total));
  }
  return [...by].map(([key, kinds]) => {
    const [network, asset] = key.split('|') as [Network, string];
    const k = (kind: string) => kinds.get(kind) ?? 0n;
    const customers = k('AVAILABLE') + k('LOCKED') + k('RECEIVABLE');
    const held = -(k('TREASURY') + k('COLD') + k('COLD_IN_TRANSIT') + k('FAUCET'));
    return {
      network,
      asset,
      customers: customers.toString(),
      hot: (-k('TREASURY')).toString(),
      cold: (-k('COLD')).toString(),
      inTransit: (-k('COLD_IN_TRANSIT')).toString(),
      faucet: (-k('FAUCET')).toString(),
      service: (k('REVENUE') + k('GAS') + k('EXTERNAL')).toString(),
      covered: held >= customers,
      gasCurrency: gasCurrencyOf(network) === asset,
    };
  });
}
