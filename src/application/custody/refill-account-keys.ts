// The chain-worker's half of "keys only where signing happens" (ADR 0026):
// records the xpubs the api needs and lacks. Per coin type: every allocated
// account of its networks (accounts from before the pool: a backfill), the
// service branch (account 0, change 1), and the pool of accounts just past
// the sequence's last value. Idempotent; two workers racing record each key once.
import { inject, injectable } from 'tsyringe';
import { ACCOUNT_KEY_POOL, COIN_TYPES } from '../../domain/custody/account-key-pool.js';
import type { AccountKeyExporter, AccountKeyStore } from '../../domain/custody/ports.js';
import { TOKENS } from '../tokens.js';

/** Keys computed and written per statement: a few hundred milliseconds of derivation each. */
const BATCH = 200;

@injectable()
export class RefillAccountKeys {
  constructor(
    @inject(TOKENS.AccountKeyStore) private readonly store: AccountKeyStore,
    @inject(TOKENS.AccountKeyExporter) private readonly exporter: AccountKeyExporter,
  ) {}

  /** Returns how many keys it recorded. */
  async execute(opts: { poolSize?: number } = {}): Promise<{ added: number }> {
    const size = opts.poolSize ?? ACCOUNT_KEY_POOL.size;
    let added = 0;
    for (const coinType of COIN_TYPES) {
      const last = await this.store.lastAllocatedAccount();
      const missing = await this.store.missing(coinType, last + size);
      for (let i = 0; i < missing.length; i += BATCH) {
        const keys = [];
        for (const { account, change } of missing.slice(i, i + BATCH)) {
          keys.push({ coinType, account, change, xpub: await this.exporter.accountXpub(coinType, account, change) });
        }
        added += await this.store.add(keys);
      }
    }
    return { added };
  }
}
