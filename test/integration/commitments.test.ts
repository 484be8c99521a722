// The monthly fee commitment on the real database, with a clock the test
// moves: a month whose fees pass the floor (NOT_DUE), one below it fully
// debited (SETTLED), one with too little available (OPEN, outstanding, then
// debited after a top-up), partial first and last months prorated, an ended
// commitment shown while something is owed on it and not after, thirteen
// months of history showing twelve, EURC fees at the operator's rate, and a
// second settlement that changes nothing. The operator's commands (create,
// suspend, resume, end, settle, mark-paid, fx set) run as `ops` does, and
// GET /v2/commitment over HTTP (403 without fees:read, the all-null shape).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { COMMITMENT_COMMANDS } from '../../src/adapters/cli/commitment-commands.js';
import { runOps } from '../../src/adapters/cli/run-ops.js';
import { ReadCommitment } from '../../src/application/commitments/read-commitment.js';
import { SettleCommitments } from '../../src/application/commitments/settle-commitments.js';
import { TOKENS } from '../../src/application/tokens.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { Asset, Network } from '../../src/domain/money/networks.js';
import { SCOPES } from '../../src/domain/auth/scopes.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { createWorkspace, uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'commitments' });
const sql = (text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute(text, params);
const uow = () => t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);

let now = new Date('2026-02-01T00:30:00Z');
const clock = { now: () => new Date(now.getTime()) };
function container() {
  const c = t.api.infra.container.createChildContainer();
  c.register(TOKENS.Clock, { useValue: clock });
  return c;
}

async function ops(...argv: string[]): Promise<{ code: number; json: Record<string, any>; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const c = container();
  const code = await runOps(COMMITMENT_COMMANDS, [...argv, '--json'], { resolve: (tok) => c.resolve(tok as never) }, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, json: out[0] ? (JSON.parse(out[0]) as Record<string, any>) : {}, err: err.join('\n') };
}
const ok = async (...argv: string[]) => {
  const r = await ops(...argv);
  expect(r.code, r.err || JSON.stringify(r.json)).toBe(0);
  return r.json;
};

/** A mainnet deposit credited at `at` with `fee` charged (whole units), of `gross` (its net goes to available). */
const deposit = (workspaceId: string, network: Network, asset: Asset, gross: string, fee: string, at: string) =>
  uow().run((tx) =>
    tx.ledger.post(creditDeposit({ id: randomUUID(), network, at: new Date(at), depositId: randomUUID(), workspaceId, gross: Amount.parse(gross, asset), fee: Amount.parse(fee, asset, 'fee', { allowZero: true }) })),
  );
const available = async (workspaceId: string, network: Network, asset: Asset) =>
  Amount.ofUnits(asset, (await uow().run((tx) => tx.ledger.balances(workspaceId, [network], { network, asset })))[0]?.available ?? 0n).toString();
const overview = (workspaceId: string) => container().resolve(ReadCommitment).overview(workspaceId);
const emitted = async (workspaceId: string) =>
  (await sql(`select payload from webhook_events where workspace_id = ? and event = 'COMMITMENT_ADJUSTMENT_EMITTED' order by created_at`, [workspaceId])).map(
    (r) => (JSON.parse((r as { payload: string }).payload) as { data: Record<string, unknown> }).data,
  );
/** Created as of the test's clock; past months need --backdate, which the tests give (the refusal is tested on its own). */
const commit = (workspaceId: string, floor: string, asset: string, startsAt: string, ...extra: string[]) =>
  ok('commitment', 'create', '--workspace', workspaceId, '--floor', floor, '--settlement-asset', asset, '--starts-at', startsAt, '--backdate', ...extra);

describe('fee commitments', () => {
  it('a month whose fees pass the floor is NOT_DUE with delta 0.000000, and no event', async () => {
    const ws = await createWorkspace(t.api, 'commit-not-due');
    const c = await commit(ws.workspaceId, '100', 'USDT_ETH', '2026-01-01T00:00:00Z', '--contract-reference', 'MSA-7');
    expect(c).toMatchObject({ monthly_floor_usdt: '100.000000', settlement_asset: 'USDT_ETH', status: 'ACTIVE', auto_debit: false, contract_reference: 'MSA-7', ends_at: null });
    await deposit(ws.workspaceId, 'ETH_MAINNET', 'USDT_ETH', '1000', '90', '2026-01-05T10:00:00Z');
    await deposit(ws.workspaceId, 'TRON_MAINNET', 'USDT_TRON', '1000', '20', '2026-01-31T23:59:59Z');
    await deposit(ws.workspaceId, 'ETH_TESTNET', 'USDT_ETH', '1000', '500', '2026-01-06T00:00:00Z'); // a testnet fee never counts
    await deposit(ws.workspaceId, 'ETH_MAINNET', 'USDT_ETH', '1000', '500', '2026-02-01T00:00:00Z'); // nor February's
    now = new Date('2026-02-01T00:30:00Z');
    const settled = await ok('commitment', 'settle', '--month', '2026-01');
    const mine = (settled.settled as Record<string, unknown>[]).find((a) => a.workspace_id === ws.workspaceId);
    expect(mine).toMatchObject({ commitment_id: c.id, prorated_floor_usdt: '100.000000', billed_fees_usdt: '110.000000', delta_usdt: '0.000000', status: 'NOT_DUE', outstanding_usdt: '0.000000', settled_at: null });
    expect(await emitted(ws.workspaceId)).toEqual([]);
  });

  it('below the floor with automatic debit covering it: SETTLED, the shortfall debited in the settlement asset, COMMITMENT_ADJUSTMENT_EMITTED; settling again changes nothing', async () => {
    const ws = await createWorkspace(t.api, 'commit-settled');
    const c = await commit(ws.workspaceId, '100', 'USDT_TRON', '2026-01-01T00:00:00Z', '--auto-debit');
    await deposit(ws.workspaceId, 'ETH_MAINNET', 'USDT_ETH', '500', '30', '2026-01-20T00:00:00Z');
    await deposit(ws.workspaceId, 'TRON_MAINNET', 'USDT_TRON', '500', '0', '2026-01-21T00:00:00Z');
    now = new Date('2026-02-01T00:30:00Z');
    await ok('commitment', 'settle', '--month', '2026-01');
    expect(await available(ws.workspaceId, 'TRON_MAINNET', 'USDT_TRON')).toBe('430.000000');
    const view = await overview(ws.workspaceId);
    expect(view.adjustments).toEqual([
      expect.objectContaining({ billed_fees_usdt: '30.000000', delta_usdt: '70.000000', recovery_mode: 'AUTO_DEBIT', debited_usdt: '70.000000', outstanding_usdt: '0.000000', status: 'SETTLED', settled_at: '2026-02-01T00:30:00.000Z' }),
    ]);
    expect(view.outstanding_total_usdt).toBe('0.000000');
    expect(await emitted(ws.workspaceId)).toEqual([expect.objectContaining({ commitment_id: c.id, workspace_id: ws.workspaceId, delta_usdt: '70.000000', status: 'SETTLED' })]);
    // Again, a day later: nothing changes.
    now = new Date('2026-02-02T00:00:00Z');
    const again = await ok('commitment', 'settle', '--month', '2026-01');
    expect((again.settled as unknown[]).some((a) => (a as { workspace_id: string }).workspace_id === ws.workspaceId)).toBe(false);
    expect(again.already_settled).toBeGreaterThanOrEqual(1);
    expect(await available(ws.workspaceId, 'TRON_MAINNET', 'USDT_TRON')).toBe('430.000000');
    expect(await overview(ws.workspaceId)).toEqual(view);
    expect(await emitted(ws.workspaceId)).toHaveLength(1);
  });

  it('with too little available: OPEN with the rest outstanding, never below zero; a top-up is debited by the next run', async () => {
    const ws = await createWorkspace(t.api, 'commit-open');
    await commit(ws.workspaceId, '100', 'USDT_BSC', '2026-01-01T00:00:00Z', '--auto-debit');
    await deposit(ws.workspaceId, 'BSC_MAINNET', 'USDT_BSC', '40', '0', '2026-01-03T00:00:00Z');
    now = new Date('2026-02-01T00:30:00Z');
    await ok('commitment', 'settle', '--month', '2026-01');
    expect(await available(ws.workspaceId, 'BSC_MAINNET', 'USDT_BSC')).toBe('0.000000');
    let view = await overview(ws.workspaceId);
    expect(view.adjustments[0]).toMatchObject({ delta_usdt: '100.000000', debited_usdt: '40.000000', outstanding_usdt: '60.000000', status: 'OPEN', settled_at: null });
    expect(view.outstanding_total_usdt).toBe('60.000000');
    expect(await emitted(ws.workspaceId)).toEqual([expect.objectContaining({ status: 'OPEN', outstanding_usdt: '60.000000' })]);
    // A top-up of the settlement asset; the scheduled run debits what is owed.
    await deposit(ws.workspaceId, 'BSC_MAINNET', 'USDT_BSC', '100', '0', '2026-02-10T00:00:00Z');
    now = new Date('2026-02-10T01:05:00Z');
    const run = await container().resolve(SettleCommitments).run();
    expect(run.recovered).toBeGreaterThanOrEqual(1);
    expect(await available(ws.workspaceId, 'BSC_MAINNET', 'USDT_BSC')).toBe('40.000000');
    view = await overview(ws.workspaceId);
    expect(view.adjustments[0]).toMatchObject({ debited_usdt: '100.000000', outstanding_usdt: '0.000000', status: 'SETTLED', settled_at: '2026-02-10T01:05:00.000Z' });
    expect(view.outstanding_total_usdt).toBe('0.000000');
    const ledger = await ok('commitment', 'show', '--workspace', ws.workspaceId);
    expect(ledger).toEqual(JSON.parse(JSON.stringify(view)));
  });

  it('prorates the first and last partial months; an ended commitment is shown while something is owed on it, and not after', async () => {
    const ws = await createWorkspace(t.api, 'commit-prorated');
    const c = await commit(ws.workspaceId, '310', 'USDT_ETH', '2026-01-10T15:00:00Z', '--ends-at', '2026-02-20T00:00:00Z');
    now = new Date('2026-01-15T00:00:00Z');
    const during = await overview(ws.workspaceId);
    expect(during.current_period).toMatchObject({ days_covered: 22, days_in_month: 31, prorated_floor_usdt: '220.000000', billed_fees_usdt: '0.000000', remaining_to_floor_usdt: '220.000000', indicative: true });
    expect(await ops('commitment', 'settle', '--month', '2026-01')).toMatchObject({ code: 2 }); // not closed yet
    now = new Date('2026-03-01T02:00:00Z');
    await container().resolve(SettleCommitments).run(); // the scheduled run settles January and February
    let view = await overview(ws.workspaceId);
    expect(view.commitment).toMatchObject({ id: c.id, status: 'ENDED' });
    expect(view.current_period).toBeNull();
    expect(view.adjustments.map((a) => [a.period_start, a.prorated_floor_usdt, a.recovery_mode, a.status, a.outstanding_usdt])).toEqual([
      ['2026-02-01T00:00:00.000Z', '210.357143', 'MANUAL', 'OPEN', '210.357143'], // 19 of 28 days
      ['2026-01-01T00:00:00.000Z', '220.000000', 'MANUAL', 'OPEN', '220.000000'], // 22 of 31 days
    ]);
    expect(view.outstanding_total_usdt).toBe('430.357143');
    // The workspace pays outside the platform; the operator records it, month by month.
    await ok('commitment', 'mark-paid', '--adjustment', view.adjustments[1]!.id);
    expect((await overview(ws.workspaceId)).commitment?.id).toBe(c.id); // February is still owed
    expect((await ops('commitment', 'mark-paid', '--adjustment', view.adjustments[1]!.id)).code).toBe(2); // nothing owed on it any more
    await ok('commitment', 'mark-paid', '--adjustment', view.adjustments[0]!.id);
    view = await overview(ws.workspaceId);
    expect(view).toEqual({ commitment: null, current_period: null, adjustments: [], outstanding_total_usdt: '0.000000' });
  });

  it('shows the commitment in force rather than a renewal starting later, and the workspace’s adjustments of every commitment', async () => {
    const ws = await createWorkspace(t.api, 'commit-renewal');
    now = new Date('2026-03-10T00:00:00Z');
    const old = await commit(ws.workspaceId, '100', 'USDT_ETH', '2026-01-01T00:00:00Z', '--ends-at', '2026-03-01T00:00:00Z');
    const current = await commit(ws.workspaceId, '310', 'USDT_ETH', '2026-03-01T00:00:00Z', '--ends-at', '2026-04-01T00:00:00Z');
    const renewal = await commit(ws.workspaceId, '500', 'USDT_ETH', '2026-04-01T00:00:00Z');
    expect(renewal).toMatchObject({ status: 'ACTIVE' });
    await ok('commitment', 'settle', '--month', '2026-01');
    await ok('commitment', 'settle', '--month', '2026-02');
    const view = await overview(ws.workspaceId);
    expect(view.commitment).toMatchObject({ id: current.id, monthly_floor_usdt: '310.000000', status: 'ACTIVE' });
    expect(view.current_period).toMatchObject({ days_covered: 31, prorated_floor_usdt: '310.000000' });
    // What is owed on the ended one is listed too, not only counted.
    expect(view.adjustments.map((a) => [a.period_start.slice(0, 7), a.status, a.outstanding_usdt])).toEqual([
      ['2026-02', 'OPEN', '100.000000'],
      ['2026-01', 'OPEN', '100.000000'],
    ]);
    expect(view.outstanding_total_usdt).toBe('200.000000');
    expect(old.id).not.toBe(current.id);
  });

  it('keeps thirteen months of history and shows the newest twelve; outstanding counts all thirteen', async () => {
    const ws = await createWorkspace(t.api, 'commit-history');
    await commit(ws.workspaceId, '10', 'USDT_ETH', '2025-01-01T00:00:00Z');
    now = new Date('2026-02-03T00:00:00Z');
    const settle = container().resolve(SettleCommitments);
    for (let m = 0; m < 13; m++) {
      const month = new Date(Date.UTC(2025, m, 1)).toISOString().slice(0, 7);
      await ok('commitment', 'settle', '--month', month);
    }
    await settle.run(); // nothing more: every month is settled
    const view = await overview(ws.workspaceId);
    expect(view.adjustments).toHaveLength(12);
    expect(view.adjustments[0]!.period_start).toBe('2026-01-01T00:00:00.000Z');
    expect(view.adjustments[11]!.period_start).toBe('2025-02-01T00:00:00.000Z');
    expect(view.outstanding_total_usdt).toBe('130.000000');
    expect(view.current_period).toMatchObject({ days_covered: 28, prorated_floor_usdt: '10.000000' });
  });

  it('converts EURC fees at the operator’s rate (and waits for one), and debits EURC at it', async () => {
    const ws = await createWorkspace(t.api, 'commit-eurc');
    await commit(ws.workspaceId, '200', 'EURC_ETH', '2026-03-01T00:00:00Z', '--auto-debit');
    await deposit(ws.workspaceId, 'ETH_MAINNET', 'EURC_ETH', '1100', '100', '2026-03-02T00:00:00Z'); // 1,000 EURC available
    now = new Date('2026-04-01T00:10:00Z');
    await sql(`delete from fx_rates`);
    const without = await ok('commitment', 'settle', '--month', '2026-03');
    expect(without.failed).toEqual([expect.objectContaining({ reason: expect.stringMatching(/EURC_USD/) })]);
    expect((await ops('fx', 'set', 'EURC_USD', '-1')).code).toBe(2);
    expect(await ok('fx', 'set', 'EURC_USD', '1.1')).toMatchObject({ pair: 'EURC_USD', rate: '1.100000' });
    const settled = await ok('commitment', 'settle', '--month', '2026-03');
    // 100 EURC of fees at 1.10 is 110 USD: 90 short, debited as 81.818182 EURC.
    expect(settled.settled).toEqual([expect.objectContaining({ workspace_id: ws.workspaceId, billed_fees_usdt: '110.000000', delta_usdt: '90.000000', debited_usdt: '90.000000', status: 'SETTLED' })]);
    expect(await available(ws.workspaceId, 'ETH_MAINNET', 'EURC_ETH')).toBe('918.181818');
  });

  it('refuses what makes no sense: overlapping commitments, bad input, and changes from the wrong status', async () => {
    const ws = await createWorkspace(t.api, 'commit-ops');
    now = new Date('2026-06-10T00:00:00Z');
    const c = await commit(ws.workspaceId, '500', 'USDC_ETH', '2026-06-01T00:00:00Z');
    const overlap = await ops('commitment', 'create', '--workspace', ws.workspaceId, '--floor', '1', '--settlement-asset', 'USDT_ETH', '--starts-at', '2027-01-01T00:00:00Z');
    expect(overlap.json).toMatchObject({ code: 'CONFLICT', error: expect.stringMatching(/covers part of that time/) });
    for (const bad of [
      ['--floor', '0', '--settlement-asset', 'USDT_ETH', '--starts-at', '2030-01-01T00:00:00Z'],
      ['--floor', '1.1234567', '--settlement-asset', 'USDT_ETH', '--starts-at', '2030-01-01T00:00:00Z'],
      ['--floor', '10', '--settlement-asset', 'ETH', '--starts-at', '2030-01-01T00:00:00Z'],
      ['--floor', '10', '--settlement-asset', 'USDT_ETH', '--starts-at', 'tomorrow'],
      ['--floor', '10', '--settlement-asset', 'USDT_ETH', '--starts-at', '2030-01-02T00:00:00Z', '--ends-at', '2030-01-01T00:00:00Z'],
      ['--floor', '1000000000.000001', '--settlement-asset', 'USDT_ETH', '--starts-at', '2030-01-01T00:00:00Z'],
    ]) {
      expect((await ops('commitment', 'create', '--workspace', ws.workspaceId, ...bad)).code, bad.join(' ')).toBe(2);
    }
    expect((await ops('commitment', 'create', '--workspace', randomUUID(), '--floor', '1', '--settlement-asset', 'USDT_ETH', '--starts-at', '2030-01-01T00:00:00Z')).code).not.toBe(0);
    // A start in a month already closed is billed at once: the operator must confirm it.
    const past = await ops('commitment', 'create', '--workspace', ws.workspaceId, '--floor', '1', '--settlement-asset', 'USDT_ETH', '--starts-at', '2026-05-31T00:00:00Z', '--ends-at', '2026-06-01T00:00:00Z');
    expect(past.json).toMatchObject({ code: 'VALIDATION_ERROR', error: expect.stringMatching(/--backdate/) });
    expect((await ops('commitment', 'resume', '--id', c.id)).code).toBe(2);
    expect(await ok('commitment', 'suspend', '--id', c.id)).toMatchObject({ status: 'SUSPENDED' });
    expect((await overview(ws.workspaceId)).commitment).toMatchObject({ id: c.id, status: 'SUSPENDED' });
    now = new Date('2026-06-20T00:00:00Z');
    expect(await ok('commitment', 'resume', '--id', c.id)).toMatchObject({ status: 'ACTIVE' });
    // June: in force the 1st to the 9th (paused at midnight before the 10th), and from the 20th: 20 of 30 days.
    expect((await overview(ws.workspaceId)).current_period).toMatchObject({ days_covered: 20, prorated_floor_usdt: '333.333333' });
    expect(await ok('commitment', 'end', '--id', c.id)).toMatchObject({ status: 'ENDED', ends_at: '2026-06-20T00:00:00.000Z' });
    expect((await ops('commitment', 'end', '--id', c.id)).code).toBe(2);
    expect((await ops('commitment', 'suspend', '--id', randomUUID())).code).not.toBe(0);
    expect((await ops('commitment', 'settle', '--month', '2026-6')).code).toBe(2);
  });
});

describe('GET /v2/commitment', () => {
  it('needs fees:read, and shows the all-null shape when there is nothing', async () => {
    const ws = await createWorkspace(t.api, 'commit-http');
    const res = await uniqueCall(t.api.baseUrl, ws.liveKey, 'GET', '/v2/commitment');
    expect([res.status, res.body]).toEqual([200, { commitment: null, current_period: null, adjustments: [], outstanding_total_usdt: '0.000000' }]);
    const key = await uniqueCall(t.api.baseUrl, ws.liveKey, 'POST', '/v2/api-keys', { label: 'no fees', scopes: SCOPES.filter((s) => s !== 'fees:read') });
    const denied = await uniqueCall(t.api.baseUrl, { keyId: key.body.key_id, secret: key.body.secret }, 'GET', '/v2/commitment');
    expect([denied.status, denied.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });

  it('shows the active commitment with its current month over HTTP, and through the SDK', async () => {
    const ws = await createWorkspace(t.api, 'commit-http-active');
    const real = new Date();
    const start = new Date(Date.UTC(real.getUTCFullYear(), real.getUTCMonth() - 1, 1)).toISOString();
    const c = await commit(ws.workspaceId, '1000', 'USDT_TRON', start, '--auto-debit', '--contract-reference', 'MSA-2026-11');
    const res = await uniqueCall(t.api.baseUrl, ws.testKey, 'GET', '/v2/commitment');
    expect(res.status).toBe(200);
    expect(res.body.commitment).toEqual({
      id: c.id,
      monthly_floor_usdt: '1000.000000',
      settlement_asset: 'USDT_TRON',
      starts_at: start,
      ends_at: null,
      status: 'ACTIVE',
      auto_debit: true,
      contract_reference: 'MSA-2026-11',
    });
    expect(res.body.current_period).toMatchObject({ prorated_floor_usdt: '1000.000000', billed_fees_usdt: '0.000000', remaining_to_floor_usdt: '1000.000000', projected_fees_usdt: '0.000000', indicative: true });
    const { WalletClient } = await import('../../src/sdk/index.js');
    const client = new WalletClient({ baseUrl: t.api.baseUrl, keyId: ws.liveKey.keyId, secret: ws.liveKey.secret });
    expect((await client.getCommitment()).commitment).toEqual(res.body.commitment);
  });
});
