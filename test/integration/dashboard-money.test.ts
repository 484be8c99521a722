// The dashboard's Money and Fees sections over real HTTP and PostgreSQL
// (issue 32): balances of money credited through the ledger with a 30-day
// chart that ends at the balance, the deposit and withdrawal lists with the
// API's filters (a value the API refuses is a 400 page and nothing else),
// each one's timeline with its transaction id, another workspace's record or
// a malformed id a 404, a VIEWER reading every page, and the fees page with
// and without a monthly commitment.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManageCommitments } from '../../src/application/commitments/manage-commitments.js';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { consumeLock, creditDeposit, lockForWithdrawal } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { requestTransfer } from '../../src/domain/transfers/outgoing-transfer.js';
import type { Withdrawal } from '../../src/domain/withdrawals/withdrawal.js';
import { createMember, DashboardClient, type TestMember } from '../support/dashboard.js';
import { createWorkspace, uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'dashboard-money' });
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
const uow = () => t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);

const DAY = 86_400_000;
const ago = (ms: number) => new Date(Date.now() - ms);
const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const txid = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const ids = {} as Record<'swept' | 'detected' | 'theirDeposit' | 'paid' | 'cancelledTest' | 'theirWithdrawal', string>;
let other: CreatedWorkspace;
let owner: TestMember;

async function insertDeposit(o: { workspaceId: string; walletId: string; status: string; amount: string; fee?: [string, string]; txid: string; detected: Date; confirmed?: Date; swept?: Date }) {
  const id = randomUUID();
  await sql(
    `insert into deposits (id, workspace_id, wallet_id, network, asset, txid, log_index, from_address, to_address, chain_amount, amount,
       block_number, block_hash, status, confirmations, required_confirmations, fee_amount, net_amount, applied_rate_ppm, applied_min_fee,
       detected_at, confirmed_at, swept_at, created_at, updated_at)
     values (?, ?, ?, 'ETH_MAINNET', 'USDT_ETH', ?, 0, ?, ?, ?, ?, 12345, '0xab', ?, ?, 12, ?, ?, 9000, 3000000, ?, ?, ?, ?, ?)`,
    [id, o.workspaceId, o.walletId, o.txid, ADDRESS, ADDRESS, o.amount, o.amount, o.status, o.confirmed ? 12 : 1, o.fee?.[0] ?? null, o.fee?.[1] ?? null,
      o.detected, o.confirmed ?? null, o.swept ?? null, o.detected, o.swept ?? o.confirmed ?? o.detected],
  );
  return id;
}

const withdrawal = (fields: Partial<Withdrawal>): Withdrawal => ({
  id: randomUUID(), workspaceId: t.ws.workspaceId, network: 'ETH_MAINNET', asset: 'USDT_ETH', amount: 20_000_000n, fee: 5_000_000n, netAmount: 15_000_000n,
  destination: ADDRESS, status: 'PENDING', idempotencyKey: null, transferId: null, txid: null, failure: null, requestedAt: ago(DAY), confirmedAt: null, updatedAt: ago(DAY),
  ...fields,
});

const signedIn = async (m: TestMember) => {
  const browser = new DashboardClient(t.api.baseUrl);
  // A recovery code: no wait for the next TOTP step (ten per member, one per sign-in here).
  const r = await browser.signIn(m, m.recovery());
  expect(r.status).toBe(303);
  return browser;
};

beforeAll(async () => {
  other = await createWorkspace(t.api, 'someone-else');
  owner = await createMember(t.api, t.ws.workspaceId, 'OWNER');
  const wallet = (await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' })).body.id as string;
  const theirWallet = (await uniqueCall(t.api.baseUrl, other.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' })).body.id as string;
  const ws = t.ws.workspaceId;
  const at = { detected: ago(2 * DAY), confirmed: ago(2 * DAY - 60_000), swept: ago(DAY + 3_600_000) };
  ids.swept = await insertDeposit({ workspaceId: ws, walletId: wallet, status: 'SWEPT', amount: '100000000', fee: ['3000000', '97000000'], txid: txid(1), ...at });
  ids.detected = await insertDeposit({ workspaceId: ws, walletId: wallet, status: 'DETECTED', amount: '7000000', txid: txid(2), detected: ago(3_600_000) });
  ids.theirDeposit = await insertDeposit({ workspaceId: other.workspaceId, walletId: theirWallet, status: 'DETECTED', amount: '1000000', txid: txid(3), detected: ago(60_000) });

  const [{ id: ownerId }] = (await sql<{ id: string }>(`select id from workspace_members where email = ?`, [owner.email])) as [{ id: string }];
  const transfer = requestTransfer({ id: randomUUID(), kind: 'WITHDRAWAL', network: 'ETH_MAINNET', asset: 'USDT_ETH', from: ADDRESS, fromPath: servicePath('ETH_MAINNET', 'treasury'), to: ADDRESS, amount: 15_000_000n, requestedAt: ago(DAY - 120_000) });
  const paid = withdrawal({ status: 'CONFIRMED', transferId: transfer.id, txid: txid(4), confirmedAt: ago(DAY - 600_000), updatedAt: ago(DAY - 600_000), requestedAt: ago(DAY) });
  ids.paid = paid.id;
  const cancelled = withdrawal({ network: 'ETH_TESTNET', status: 'CANCELLED', requestedAt: ago(3_600_000), updatedAt: ago(3_000_000) });
  ids.cancelledTest = cancelled.id;
  const theirs = withdrawal({ workspaceId: other.workspaceId });
  ids.theirWithdrawal = theirs.id;
  const usdt = (s: string) => Amount.parse(s, 'USDT_ETH');
  await uow().run(async (tx) => {
    // Money credited and paid out as the ledger books it: 49 five days ago, 97 two days ago, 20 out yesterday.
    await tx.ledger.post(creditDeposit({ id: randomUUID(), network: 'ETH_MAINNET', at: ago(5 * DAY), depositId: randomUUID(), workspaceId: ws, gross: usdt('50'), fee: usdt('1') }));
    await tx.ledger.post(creditDeposit({ id: randomUUID(), network: 'ETH_MAINNET', at: at.confirmed, depositId: ids.swept, workspaceId: ws, gross: usdt('100'), fee: usdt('3') }));
    await tx.ledger.post(lockForWithdrawal({ id: randomUUID(), network: 'ETH_MAINNET', at: paid.requestedAt, withdrawalId: paid.id, workspaceId: ws, amount: usdt('20') }));
    await tx.ledger.post(consumeLock({ id: randomUUID(), network: 'ETH_MAINNET', at: ago(DAY - 180_000), withdrawalId: paid.id, workspaceId: ws, amount: usdt('20'), fee: usdt('5') }));
    await tx.transfers.add(transfer);
    await tx.transfers.save({ ...transfer, status: 'CONFIRMED', broadcastAt: ago(DAY - 180_000), confirmedAt: ago(DAY - 600_000), included: { txid: txid(4), blockNumber: 99n, reverted: false } });
    for (const w of [paid, cancelled, theirs]) await tx.withdrawals.add(w);
    await tx.members.approve(paid.id, ownerId, ago(DAY - 60_000));
  });
});

describe('the money pages', () => {
  it('shows the balances of credited money per network and asset, with a 30-day chart that ends at the balance', async () => {
    const browser = await signedIn(owner);
    const page = await browser.get('/dashboard/money?side=live');
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('<td>ETH_MAINNET</td><td>USDT_ETH</td><td>126.000000</td><td>0.000000</td><td>126.000000</td>');
    // The chart: an image with a title and a text alternative, and its numbers in a table.
    expect(page.text).toMatch(/<svg [^>]*role="img" aria-label="USDT_ETH on ETH_MAINNET, total at the end of each day\. [^"]*to 126\.000000 USDT_ETH\."/);
    expect(page.text).toContain('<title>USDT_ETH on ETH_MAINNET, total at the end of each day</title>');
    expect(page.text).toContain('<polyline');
    const day = (d: Date) => d.toISOString().slice(0, 10);
    expect(page.text).toContain(`<td>${day(new Date())}</td><td>126.000000</td>`);
    expect(page.text).toContain(`<td>${day(ago(29 * DAY))}</td><td>0.000000</td>`);
    expect(page.text).toContain(`<td>${day(ago(3 * DAY))}</td><td>49.000000</td>`);
    // The test side holds nothing; the switch is there.
    const test = await browser.get('/dashboard/money?side=test');
    expect(test.text).toContain('Balances on Test (testnets): none.');
    expect(test.text).toContain('href="/dashboard/money?side=live"');
  });

  it('lists deposits and withdrawals with the API’s filters and pages, and answers a filter the API refuses with a 400 page and nothing else', async () => {
    const browser = await signedIn(owner);
    const all = await browser.get('/dashboard/money/deposits?side=live');
    expect(all.status).toBe(200);
    expect([all.text.includes(ids.swept), all.text.includes(ids.detected), all.text.includes(ids.theirDeposit)]).toEqual([true, true, false]);
    const detected = await browser.get('/dashboard/money/deposits?side=live&status=DETECTED&chain=&wallet_id=&customer_id=&limit=20');
    expect([detected.text.includes(ids.swept), detected.text.includes(ids.detected)]).toEqual([false, true]);
    expect(detected.text).toContain('<option selected>DETECTED</option>');
    const paged = await browser.get('/dashboard/money/deposits?side=live&limit=1&page=2');
    expect([paged.text.includes(ids.swept), paged.text.includes(ids.detected)]).toEqual([true, false]);
    expect(paged.text).toContain('Page 2 of 2 (2 in all)');
    expect(paged.text).toContain('href="/dashboard/money/deposits?side=live&amp;page=1&amp;limit=1" rel="prev"');
    expect((await browser.get('/dashboard/money/deposits?side=live&chain=TRON')).text).not.toContain(ids.swept);

    const withdrawals = await browser.get('/dashboard/money/withdrawals?side=live&status=CONFIRMED&chain=ETH');
    expect([withdrawals.text.includes(ids.paid), withdrawals.text.includes(ids.cancelledTest), withdrawals.text.includes(ids.theirWithdrawal)]).toEqual([true, false, false]);
    const test = await browser.get('/dashboard/money/withdrawals?side=test');
    expect([test.text.includes(ids.paid), test.text.includes(ids.cancelledTest)]).toEqual([false, true]);

    for (const bad of [
      '/dashboard/money/deposits?status=CREDITED',
      '/dashboard/money/deposits?limit=101',
      '/dashboard/money/deposits?page=0',
      '/dashboard/money/deposits?wallet_id=not-a-uuid',
      '/dashboard/money/deposits?status=DETECTED&status=SWEPT',
      '/dashboard/money/withdrawals?chain=DOGE',
      '/dashboard/money/withdrawals?status=%3Cscript%3E',
      '/dashboard/money/withdrawals?limit=05',
      '/dashboard/money?side=both',
      '/dashboard/fees?side=mainnet',
    ]) {
      const r = await browser.get(bad);
      expect(r.status, bad).toBe(400);
      expect(r.text, bad).toContain('class="error" role="alert"');
      expect(r.text, bad).not.toContain('<table');
      expect(r.text, bad).not.toContain('<script>');
    }
  });

  it('shows a deposit’s and a withdrawal’s timeline with the transaction id, and 404 for another workspace’s record or a malformed id', async () => {
    const browser = await signedIn(owner);
    const deposit = await browser.get(`/dashboard/money/deposits/${ids.swept}?side=live`);
    expect(deposit.status).toBe(200);
    expect(deposit.text).toContain(`<code id="txid">${txid(1)}</code>`);
    const steps = [...deposit.text.matchAll(/<strong>([^<]+)<\/strong>/g)].map((m) => m[1]);
    expect(steps).toEqual(['Detected', 'Confirmed and credited', 'Swept to the treasury']);
    expect(deposit.text).toContain('<td>Credited (net)</td><td>97.000000</td>');

    // Reached from the approvals page, without a side.
    const paid = await browser.get(`/dashboard/money/withdrawals/${ids.paid}`);
    expect(paid.status).toBe(200);
    expect(paid.text).toContain(`<code id="txid">${txid(4)}</code>`);
    expect([...paid.text.matchAll(/<strong>([^<]+)<\/strong>/g)].map((m) => m[1])).toEqual(['Requested', 'Approved', 'Picked up for sending', 'Broadcast', 'Confirmed']);
    expect(paid.text).toContain(`(by ${owner.email})`);
    const cancelled = await browser.get(`/dashboard/money/withdrawals/${ids.cancelledTest.toUpperCase()}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.text).toContain('Cancelled or rejected');
    expect(cancelled.text).toContain('not broadcast yet');

    for (const missing of [
      `/dashboard/money/deposits/${ids.theirDeposit}`,
      `/dashboard/money/withdrawals/${ids.theirWithdrawal}`,
      `/dashboard/money/withdrawals/${ids.paid}?side=test`,
      '/dashboard/money/deposits/not-a-uuid',
      `/dashboard/money/withdrawals/${"'; drop table withdrawals; --"}`,
    ]) {
      const r = await browser.get(missing);
      expect(r.status, missing).toBe(404);
      expect(r.text, missing).not.toContain('<table');
    }
  });

  it('lets a VIEWER read every page of money and fees', async () => {
    const viewer = await createMember(t.api, t.ws.workspaceId, 'VIEWER');
    const browser = await signedIn(viewer);
    for (const path of ['/dashboard/money', '/dashboard/money?side=test', '/dashboard/money/deposits', '/dashboard/money/withdrawals', `/dashboard/money/deposits/${ids.swept}`, `/dashboard/money/withdrawals/${ids.paid}`, '/dashboard/fees', '/dashboard/fees?side=test']) {
      const r = await browser.get(path);
      expect(r.status, path).toBe(200);
    }
    expect((await browser.get('/dashboard/money?side=live')).text).toContain('126.000000');
    // The sandbox opens on the testnets, where its money is.
    expect((await browser.get('/dashboard/money')).text).toMatch(/href="\/dashboard\/money\?side=test" aria-current="page"/);
  });
});

describe('the fees page', () => {
  it('shows a workspace without a commitment its billed fees and its fee schedule', async () => {
    const browser = await signedIn(owner);
    const page = await browser.get('/dashboard/fees');
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('id="no-commitment"');
    expect(page.text).toContain('<title>Fees billed this month (cumulative)</title>');
    expect(page.text).not.toContain('Prorated floor');
    expect(page.text).toContain('Deposit rate applied now: <strong>0.9000 %</strong>, tier STANDARD');
    expect(page.text).toContain('<td>USDT_ETH</td><td>3.000000</td><td>5.000000</td><td>50.000000</td>');
  });

  it('charts the fees billed this month against the prorated floor of a commitment', async () => {
    const ws = await createWorkspace(t.api, 'committed');
    const member = await createMember(t.api, ws.workspaceId, 'VIEWER');
    const start = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
    await t.api.infra.container.resolve(ManageCommitments).create({
      workspaceId: ws.workspaceId, floor: '100', settlementAsset: 'USDT_ETH', startsAt: start, endsAt: null, autoDebit: false, contractReference: 'MSA-32', backdate: false,
    });
    await uow().run((tx) =>
      tx.ledger.post(creditDeposit({ id: randomUUID(), network: 'ETH_MAINNET', at: ago(1000), depositId: randomUUID(), workspaceId: ws.workspaceId, gross: Amount.parse('400', 'USDT_ETH'), fee: Amount.parse('4', 'USDT_ETH') })),
    );
    const browser = await signedIn(member);
    const page = await browser.get('/dashboard/fees');
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('<td>Monthly floor</td><td>100.000000 USD</td>');
    expect(page.text).toContain('<td>Contract reference</td><td>MSA-32</td>');
    expect(page.text).toContain('<td>Prorated floor</td><td>100.000000</td>');
    expect(page.text).toContain('<td>Billed fees</td><td>4.000000</td>');
    expect(page.text).toContain('<title>Fees billed this month (cumulative) against the prorated floor</title>');
    expect(page.text).toMatch(/<svg [^>]*role="img" aria-label="[^"]*Billed fees \(cumulative\): from [0-9.]+ to 4\.000000 USD; Prorated floor: from 100\.000000 to 100\.000000 USD\."/);
    expect(page.text).toContain(`<td>${new Date().toISOString().slice(0, 10)}</td><td>4.000000</td><td>100.000000</td>`);
    expect(page.text).toContain('stroke-dasharray');
  });
});
