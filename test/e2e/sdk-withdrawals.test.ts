// Withdrawals through the client SDK over real HTTP (issue 16): a create
// whose answer is lost on the way back is retried under the same
// Idempotency-Key and replayed, so one withdrawal exists and one amount is
// locked; reads, records and cancel; a second cancel is refused.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { UnprocessableError, WalletClient, type WalletApiError } from '../../src/sdk/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { checkedFetch } from '../support/openapi-check.js';
import { createWorkspace, failure, startTestApi, testConfig } from '../support/harness.js';

const OUTSIDE = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
let db: TestDatabase;
let api: Awaited<ReturnType<typeof startTestApi>>;
let ws: CreatedWorkspace;
let dropped = 0;

/** Loses the first answer to a withdrawal create after the service has handled it (a connection cut on the way back). */
const lossyFetch: typeof fetch = async (input, init) => {
  const res = await checkedFetch(input, init);
  if (init?.method === 'POST' && String(input).includes('/v2/withdrawals') && !String(input).includes('cancel') && dropped === 0) {
    dropped++;
    await res.arrayBuffer();
    throw new TypeError('fetch failed');
  }
  return res;
};

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url));
  ws = await createWorkspace(api, 'sdk-withdrawals');
  await api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
    tx.ledger.post(
      creditDeposit({ id: randomUUID(), network: 'BSC_TESTNET', at: new Date(), depositId: randomUUID(), workspaceId: ws.workspaceId, gross: Amount.parse('50', 'USDT_BSC'), fee: Amount.zero('USDT_BSC') }),
    ),
  );
});

afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe('withdrawals through the SDK', () => {
  it('retries a create whose answer was lost under the same key: one withdrawal, one lock', async () => {
    const client = new WalletClient({ fetch: lossyFetch, baseUrl: api.baseUrl, keyId: ws.testKey.keyId, secret: ws.testKey.secret, retryBaseDelayMs: 20 });
    const created = await client.createWithdrawal({ chain: 'BSC', asset: 'USDT_BSC', amount: '20', destination_address: OUTSIDE });
    expect(dropped).toBe(1);
    expect(created).toMatchObject({ chain: 'BSC_TESTNET', amount: '20.000000', fee: '0.500000', net_amount: '19.500000', status: 'PENDING' });
    expect(created.lastResponse.idempotentReplay).toBe(true);
    expect(created.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    const [count] = await api.infra.orm.em.getConnection().execute<{ n: string }[]>('select count(*)::text as n from withdrawals where workspace_id = ?', [ws.workspaceId]);
    expect(count!.n).toBe('1');
    const balance = (await client.getBalances({ asset: 'USDT_BSC' })).data[0];
    expect(balance).toMatchObject({ available: '30.000000', locked: '20.000000' });

    expect(await client.getWithdrawal(created.id)).toMatchObject({ id: created.id, destination_address: OUTSIDE, status: 'PENDING', fee_record: null });
    expect((await client.listWithdrawals({ status: 'PENDING' })).data.map((w) => w.id)).toEqual([created.id]);
    expect((await client.listWithdrawalRecords({ chain: 'BSC' })).data[0]).toMatchObject({ id: created.id, amount: '20.000000' });
    expect((await client.cancelWithdrawal(created.id)).status).toBe('CANCELLED');
    const err = await failure<WalletApiError>(client.cancelWithdrawal(created.id));
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err.code).toBe('WITHDRAWAL_NOT_CANCELLABLE');
    expect((await client.getBalances({ asset: 'USDT_BSC' })).data[0]).toMatchObject({ available: '50.000000', locked: '0.000000' });
  });
});
