// The double-entry ledger against the real database: balanced entries, no
// double posting, never negative under concurrency, balances over HTTP, and
// `ops ledger check` finding nothing wrong (or what is wrong).
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import {
  consumeLock,
  creditDeposit,
  debitCommitment,
  faucetDrip,
  fundService,
  lockForWithdrawal,
  refundFailedWithdrawal,
  releaseLock,
  spendGas,
} from '../../src/domain/ledger/entries.js';
import type { JournalEntry } from '../../src/domain/ledger/journal.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { call, createWorkspace, startTestApi, testConfig } from '../support/harness.js';
import { opsEnv, runEntry } from '../support/processes.js';

let db: TestDatabase;
let api: Awaited<ReturnType<typeof startTestApi>>;
let ws: CreatedWorkspace;
let uow: UnitOfWork;
const at = new Date();
const usdt = (s: string) => Amount.parse(s, 'USDT_TRON');
const post = (e: JournalEntry) => uow.run((tx) => tx.ledger.post(e));
const net = 'TRON_TESTNET' as const;

async function opsLedgerCheck() {
  const dataDir = mkdtempSync(join(tmpdir(), 'wallet-ops-'));
  const res = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url, { DATA_DIR: dataDir }), [
    'ledger',
    'check',
    '--json',
  ]);
  return { code: res.code, report: JSON.parse(res.stdout || '{}'), stderr: res.stderr };
}

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startTestApi(testConfig(db.url));
  ws = await createWorkspace(api);
  uow = api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
});

afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe('ledger', () => {
  it('books every movement as a balanced entry and keeps balances consistent', async () => {
    const w = ws.workspaceId;
    const d = randomUUID();
    expect(await post(creditDeposit({ id: randomUUID(), network: net, at, depositId: d, workspaceId: w, gross: usdt('1000'), fee: usdt('9') }))).toBe('posted');
    const wd = randomUUID();
    await post(lockForWithdrawal({ id: randomUUID(), network: net, at, withdrawalId: wd, workspaceId: w, amount: usdt('100') }));
    await post(consumeLock({ id: randomUUID(), network: net, at, withdrawalId: wd, workspaceId: w, amount: usdt('100'), fee: usdt('2') }));
    await post(refundFailedWithdrawal({ id: randomUUID(), network: net, at, withdrawalId: wd, workspaceId: w, amount: usdt('100'), fee: usdt('2') }));
    const wd2 = randomUUID();
    await post(lockForWithdrawal({ id: randomUUID(), network: net, at, withdrawalId: wd2, workspaceId: w, amount: usdt('50') }));
    await post(releaseLock({ id: randomUUID(), network: net, at, withdrawalId: wd2, workspaceId: w, amount: usdt('50') }));
    const wd3 = randomUUID();
    await post(lockForWithdrawal({ id: randomUUID(), network: net, at, withdrawalId: wd3, workspaceId: w, amount: usdt('25') }));
    await post(debitCommitment({ id: randomUUID(), network: net, at, adjustmentId: randomUUID(), debitedBefore: 0n, workspaceId: w, amount: usdt('10') }));
    await post(faucetDrip({ id: randomUUID(), network: net, at, dripId: randomUUID(), amount: usdt('500') }));
    await post(spendGas({ id: randomUUID(), network: 'ETH_TESTNET', at, reference: `sweep-${d}`, gas: Amount.parse('0.001', 'ETH') }));
    await post(fundService({ id: randomUUID(), network: 'ETH_TESTNET', at, reference: `topup-${d}`, amount: Amount.parse('1', 'ETH') }));
    const balances = await uow.run((tx) => tx.ledger.balances(w, ['TRON_TESTNET', 'BSC_TESTNET', 'ETH_TESTNET'], {}));
    // 1000 − 9 fee = 991 available; −100 lock, refunded in full; 50 locked and released;
    // 25 locked; 10 debited for a commitment: 991 − 25 − 10 = 956 available, 25 locked.
    expect(balances).toEqual([{ network: 'TRON_TESTNET', asset: 'USDT_TRON', available: 956_000_000n, locked: 25_000_000n }]);
    const res = await call(api.baseUrl, ws.testKey, { path: '/v2/balances' });
    expect(res.body).toEqual({
      data: [{ chain: 'TRON_TESTNET', asset: 'USDT_TRON', available: '956.000000', locked: '25.000000', total: '981.000000' }],
    });
    const { report } = await opsLedgerCheck();
    expect(report).toMatchObject({ ok: true, unbalanced_entries: [], balance_mismatches: [], negative_balances: [] });
  });

  it('counts credited deposits and consumed withdrawals, less refunds, as 30-day volume', async () => {
    const other = await createWorkspace(api, 'volume');
    const w = other.workspaceId;
    await post(creditDeposit({ id: randomUUID(), network: net, at, depositId: randomUUID(), workspaceId: w, gross: usdt('500'), fee: usdt('5') }));
    const wd = randomUUID();
    await post(lockForWithdrawal({ id: randomUUID(), network: net, at, withdrawalId: wd, workspaceId: w, amount: usdt('100') }));
    await post(consumeLock({ id: randomUUID(), network: net, at, withdrawalId: wd, workspaceId: w, amount: usdt('100'), fee: usdt('2') }));
    const volume = () => uow.run((tx) => tx.ledger.volumeUsd(w, [net], new Date(Date.now() - 86_400_000)));
    expect(await volume()).toBe(600_000_000n);
    await post(refundFailedWithdrawal({ id: randomUUID(), network: net, at, withdrawalId: wd, workspaceId: w, amount: usdt('100'), fee: usdt('2') }));
    expect(await volume()).toBe(500_000_000n);
  });

  it('never posts the same business effect twice', async () => {
    const depositId = randomUUID();
    const e = () => creditDeposit({ id: randomUUID(), network: net, at, depositId, workspaceId: ws.workspaceId, gross: usdt('10'), fee: usdt('1') });
    const before = await uow.run((tx) => tx.ledger.balances(ws.workspaceId, [net], {}));
    expect(await post(e())).toBe('posted');
    expect(await post(e())).toBe('duplicate');
    const after = await uow.run((tx) => tx.ledger.balances(ws.workspaceId, [net], {}));
    expect(after[0]!.available - before[0]!.available).toBe(9_000_000n);
  });

  it('posts many entries at once as one by one would: each account moved by their sum, a posting each, duplicates left', async () => {
    const [a, b] = [await createWorkspace(api, 'many-a'), await createWorkspace(api, 'many-b')];
    const credit = (workspaceId: string, depositId: string, gross: string) =>
      creditDeposit({ id: randomUUID(), network: net, at, depositId, workspaceId, gross: usdt(gross), fee: usdt('0.5') });
    const already = randomUUID();
    await post(credit(a.workspaceId, already, '1'));
    const ids = Array.from({ length: 300 }, () => randomUUID());
    const batch = [
      ...ids.map((id, i) => credit(i % 2 ? a.workspaceId : b.workspaceId, id, '2')),
      credit(a.workspaceId, already, '1'), // posted before: left
      credit(b.workspaceId, ids[0]!, '2'), // twice in the batch: the first only
    ];
    const revenue = () => uow.run((tx) => tx.ledger.serviceBalance(net, 'USDT_TRON', 'REVENUE'));
    const before = await revenue();
    const results = await uow.run((tx) => tx.ledger.postMany(batch));
    expect(results.filter((r) => r === 'posted')).toHaveLength(300);
    expect(results.slice(300)).toEqual(['duplicate', 'duplicate']);
    const [ba] = await uow.run((tx) => tx.ledger.balances(a.workspaceId, [net], {}));
    const [bb] = await uow.run((tx) => tx.ledger.balances(b.workspaceId, [net], {}));
    expect([ba!.available, bb!.available]).toEqual([500_000n + 150n * 1_500_000n, 150n * 1_500_000n]);
    expect((await revenue()) - before).toBe(300n * 500_000n);
    const conn = api.infra.orm.em.getConnection();
    const [count] = await conn.execute<{ n: number }[]>(`select count(*)::int as n from postings p join journal_entries e on e.id = p.entry_id where e.reference = any(?::text[])`, [
      `{${ids.map((id) => `deposit:${id}:credit`).join(',')}}`,
    ]);
    expect(count!.n).toBe(900);
    expect(await uow.run((tx) => tx.ledger.postedAmong([`deposit:${ids[5]}:credit`, `deposit:${randomUUID()}:credit`]))).toEqual(new Set([`deposit:${ids[5]}:credit`]));
    // A guarded debit in the batch: judged entry by entry, in order (the credit before it covers it).
    const w = (await createWorkspace(api, 'many-c')).workspaceId;
    const lock = (amount: string) => lockForWithdrawal({ id: randomUUID(), network: net, at, withdrawalId: randomUUID(), workspaceId: w, amount: usdt(amount) });
    expect(await uow.run((tx) => tx.ledger.postMany([credit(w, randomUUID(), '3.5'), lock('3')]))).toEqual(['posted', 'posted']);
    await expect(uow.run((tx) => tx.ledger.postMany([credit(w, randomUUID(), '0.5'), lock('1')]))).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    const [bc] = await uow.run((tx) => tx.ledger.balances(w, [net], {}));
    expect([bc!.available, bc!.locked]).toEqual([0n, 3_000_000n]);
    expect((await opsLedgerCheck()).report.ok).toBe(true);
  });

  it('lets exactly 60 of 100 parallel debits through against a balance that covers 60: never negative, still balanced', async () => {
    const other = await createWorkspace(api, 'parallel');
    const w = other.workspaceId;
    await post(creditDeposit({ id: randomUUID(), network: net, at, depositId: randomUUID(), workspaceId: w, gross: usdt('66'), fee: usdt('6') }));
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, () =>
        post(lockForWithdrawal({ id: randomUUID(), network: net, at, withdrawalId: randomUUID(), workspaceId: w, amount: usdt('1') })),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(ok).toHaveLength(60);
    expect(refused.every((r) => (r.reason as { code?: string }).code === 'INSUFFICIENT_BALANCE')).toBe(true);
    const [b] = await uow.run((tx) => tx.ledger.balances(w, [net], {}));
    expect([b!.available, b!.locked]).toEqual([0n, 60_000_000n]);
    const { report } = await opsLedgerCheck();
    expect(report.ok).toBe(true);
  });

  it('refuses an entry that does not balance and changes nothing', async () => {
    const bad: JournalEntry = {
      id: randomUUID(),
      kind: 'DEPOSIT_CREDIT',
      reference: `bad-${randomUUID()}`,
      workspaceId: ws.workspaceId,
      network: net,
      asset: 'USDT_TRON',
      postings: [
        { account: { kind: 'AVAILABLE', owner: ws.workspaceId, network: net, asset: 'USDT_TRON' }, amount: 5n },
        { account: { kind: 'TREASURY', owner: 'SERVICE', network: net, asset: 'USDT_TRON' }, amount: -4n },
      ],
      createdAt: at,
    };
    const { assertBalanced } = await import('../../src/domain/ledger/journal.js');
    expect(() => assertBalanced(bad)).toThrow(/does not balance/);
  });

  it('reports a cached balance that differs from its entries, with exit code 1', async () => {
    const conn = api.infra.orm.em.getConnection();
    await conn.execute(`update ledger_accounts set balance = balance + 1 where owner = 'SERVICE' and kind = 'REVENUE' and network = 'TRON_TESTNET'`);
    try {
      const { code, report } = await opsLedgerCheck();
      expect(code).toBe(1);
      expect(report.ok).toBe(false);
      expect(report.balance_mismatches).toHaveLength(1);
      expect(report.balance_mismatches[0].account).toBe('SERVICE/REVENUE/TRON_TESTNET/USDT_TRON');
    } finally {
      await conn.execute(`update ledger_accounts set balance = balance - 1 where owner = 'SERVICE' and kind = 'REVENUE' and network = 'TRON_TESTNET'`);
    }
    expect((await opsLedgerCheck()).report.ok).toBe(true);
  });

  it('filters balances by chain and asset and shows nothing of the other network', async () => {
    const byChain = await call(api.baseUrl, ws.testKey, { path: '/v2/balances?chain=TRON' });
    expect(byChain.body.data.map((b: { asset: string }) => b.asset)).toEqual(['USDT_TRON']);
    expect((await call(api.baseUrl, ws.testKey, { path: '/v2/balances?asset=USDC_ETH' })).body.data).toEqual([]);
    expect((await call(api.baseUrl, ws.liveKey, { path: '/v2/balances' })).body.data).toEqual([]);
    expect((await call(api.baseUrl, ws.testKey, { path: '/v2/balances?chain=SOL' })).status).toBe(400);
    // Unknown query parameters are ignored here as on every list endpoint.
    const all = await call(api.baseUrl, ws.testKey, { path: '/v2/balances' });
    expect(all.body.data.length).toBeGreaterThan(0);
    expect((await call(api.baseUrl, ws.testKey, { path: '/v2/balances?page=2&foo=bar' })).body).toEqual(all.body);
  });
});
