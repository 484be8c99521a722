// The chain-worker's in-memory set of monitored addresses, loaded from the
// real database: every wallet of the network (ARCHIVED too), in pages that
// end even when many wallets share one creation instant (microseconds that a
// JS Date would drop), and a wallet committed late with an earlier
// created_at is still picked up by the next refresh.
import { describe, expect, it } from 'vitest';
import { PgMonitoredAddresses } from '../../src/adapters/persistence/monitored-addresses.js';
import { useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'monitored' });
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
const key = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;

async function account(): Promise<number> {
  const [row] = await sql<{ account: number }>(`insert into hd_accounts (workspace_id, network, next_index) values (?, 'BSC_TESTNET', 0) returning account`, [t.ws.workspaceId]);
  return row!.account;
}

async function insertWallets(acc: number, from: number, to: number, createdAt: string, status = 'ACTIVE'): Promise<void> {
  await sql(
    `insert into wallets (id, workspace_id, network, asset, address, derivation_account, derivation_index, status, created_at)
     select gen_random_uuid(), ?, 'BSC_TESTNET', 'USDT_BSC', '0x' || lpad(to_hex(i), 40, '0'), ?, i, ?, ${createdAt}
     from generate_series(?::int, ?::int) as i`,
    [t.ws.workspaceId, acc, status, from, to - 1],
  );
}

describe('monitored addresses', () => {
  it('loads every wallet of the network in pages, ARCHIVED ones too, even when they share one instant', async () => {
    const acc = await account();
    await insertWallets(acc, 0, 10, 'now()'); // one statement: one created_at, with microseconds
    await insertWallets(acc, 10, 12, 'now()', 'ARCHIVED');
    const index = new PgMonitoredAddresses(t.api.infra.orm, 3);
    await index.refresh('BSC_TESTNET');
    expect(index.size('BSC_TESTNET')).toBe(12);
    expect(index.has('BSC_TESTNET', key(11))).toBe(true);
    expect(index.has('BSC_TESTNET', key(12))).toBe(false);
    expect(index.has('ETH_TESTNET', key(1))).toBe(false);

    // Created (and committed) since: picked up; and one committed late with a created_at 30 s before the newest seen.
    await insertWallets(acc, 12, 14, `now() + interval '1 second'`);
    await insertWallets(acc, 14, 15, `now() - interval '30 seconds'`);
    await index.refresh('BSC_TESTNET');
    expect(index.size('BSC_TESTNET')).toBe(15);
    expect(index.has('BSC_TESTNET', key(14))).toBe(true);
  });
});
