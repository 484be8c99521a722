// AccountKeyStore in PostgreSQL (table hd_account_keys, ADR 0026). Reads run
// on the current transaction's connection when there is one; the sequence of
// hd_accounts says how far accounts have been handed out.
import type { MikroORM } from '@mikro-orm/postgresql';
import { SERVICE_ACCOUNT, coinTypeOf, type CoinType } from '../../domain/custody/derivation.js';
import { NETWORKS, baseChainOf } from '../../domain/money/networks.js';
import type { AccountKeyStore } from '../../domain/custody/ports.js';
import { currentEntityManager } from './current-entity-manager.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeInline } from './sql.js';

const networksOf = (coinType: CoinType): string[] => NETWORKS.filter((n) => coinTypeOf(baseChainOf(n)) === coinType);

export class PgAccountKeyStore implements AccountKeyStore {
  constructor(private readonly orm: MikroORM) {}

  private sql<T extends object>(text: string, params: unknown[] = []): Promise<T[]> {
    const em = currentEntityManager(this.orm);
    return executeInline<T>(em, text, params, em.getTransactionContext());
  }

  async find(coinType: CoinType, account: number, change: 0 | 1): Promise<string | null> {
    const rows = await this.sql<{ xpub: string }>(
      `select xpub from hd_account_keys where coin_type = ? and account = ? and "change" = ?`,
      [coinType, account, change],
    );
    return rows[0]?.xpub ?? null;
  }

  async lastAllocatedAccount(): Promise<number> {
    // The serial's sequence, not max(account): a value drawn by a rolled-back insert is spent too.
    const rows = await this.sql<{ last_value: string; is_called: boolean }>(
      `select last_value, is_called from hd_accounts_account_seq`,
    );
    const row = rows[0];
    return row?.is_called ? Number(row.last_value) : 0;
  }

  async countAbove(coinType: CoinType, account: number): Promise<number> {
    const rows = await this.sql<{ n: string }>(
      `select count(*) as n from hd_account_keys where coin_type = ? and "change" = 0 and account > ?`,
      [coinType, account],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async missing(coinType: CoinType, upTo: number): Promise<{ account: number; change: 0 | 1 }[]> {
    const last = await this.lastAllocatedAccount();
    const rows = await this.sql<{ account: number; change: 0 | 1 }>(
      `with wanted (account, "change") as (
         select ?::int, 1
         union select account, 0 from hd_accounts where network = any(?::text[])
         union select a, 0 from generate_series(?::int, ?::int) as a
       )
       select w.account, w."change" from wanted w
       where not exists (select 1 from hd_account_keys k where k.coin_type = ? and k.account = w.account and k."change" = w."change")
       order by w."change" desc, w.account`,
      [SERVICE_ACCOUNT, pgArrayLiteral(networksOf(coinType)), last + 1, upTo, coinType],
    );
    return rows.map((r) => ({ account: Number(r.account), change: Number(r.change) as 0 | 1 }));
  }

  async add(keys: { coinType: CoinType; account: number; change: 0 | 1; xpub: string }[]): Promise<number> {
    if (keys.length === 0) return 0;
    const rows = await this.sql<{ account: number }>(
      `insert into hd_account_keys (coin_type, account, "change", xpub, created_at)
       select k.*, now() from unnest(?::int[], ?::int[], ?::int[], ?::text[]) as k(coin_type, account, "change", xpub)
       on conflict do nothing returning account`,
      (['coinType', 'account', 'change', 'xpub'] as const).map((c) => pgArrayLiteral(keys.map((k) => k[c]))),
    );
    return rows.length;
  }
}
