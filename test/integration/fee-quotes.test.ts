// POST /v2/fees/quote over real HTTP (docs/api.md#fee-quotes, #fee-schedule), with the
// operator's tiers and overrides set through the ops CLI.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { call, createWorkspace, uniqueCall, useTestApi, type TestApi } from '../support/harness.js';
import { opsEnv, runEntry } from '../support/processes.js';

const t = useTestApi();
let api: TestApi;
let ws: CreatedWorkspace;
beforeAll(() => {
  ({ api, ws } = t);
});

const quote = (body: unknown, key: { keyId: string; secret: string } = ws.testKey) =>
  uniqueCall(api.baseUrl, key, 'POST', '/v2/fees/quote', body);

const ops = async (...args: string[]) => {
  const res = await runEntry(
    'src/bootstrap/ops.ts',
    opsEnv(t.db.url, { DATA_DIR: mkdtempSync(join(tmpdir(), 'wallet-ops-')) }),
    [...args, '--json'],
  );
  return { code: res.code, out: res.stdout ? JSON.parse(res.stdout) : null, err: res.stderr };
};

describe('POST /v2/fees/quote', () => {
  it('returns every documented field for a deposit quote: 100 USDT_TRON on STANDARD pays the 1.000000 minimum', async () => {
    const res = await quote({ direction: 'deposit', chain: 'TRON', asset: 'USDT_TRON', amount: '100' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      direction: 'deposit',
      chain: 'TRON_TESTNET',
      asset: 'USDT_TRON',
      mode: 'charge',
      fee_basis: 'gross',
      amount: '100.000000',
      gross: '100.000000',
      net: '99.000000',
      fee: '1.000000',
      effective_rate: '0.010000',
      applied_rate: '0.009000',
      min_fee: '1.000000',
      rule: 'MIN_FEE',
      override_applied: false,
      tier: 'STANDARD',
      viable: true,
      indicative: true,
      warnings: ['MIN_FEE_DOMINATES'],
    });
  });

  it('prices withdrawals with a flat fee and gross_up with the net as basis; 18 places for ETH', async () => {
    const w = await quote({ direction: 'withdrawal', chain: 'ETH', asset: 'USDC_ETH', amount: '100', mode: 'charge' }, ws.liveKey);
    expect(w.body).toMatchObject({ chain: 'ETH_MAINNET', fee: '5.000000', net: '95.000000', flat_fee: '5.000000', rule: 'FLAT', applied_rate: '0.000000' });
    expect(w.body).not.toHaveProperty('min_fee');
    const g = await quote({ direction: 'deposit', chain: 'TRON', asset: 'USDT_TRON', amount: '100', mode: 'gross_up' });
    expect(g.body).toMatchObject({ fee_basis: 'net', amount: '100.000000', gross: '101.000000', net: '100.000000', fee: '1.000000' });
    const eth = await quote({ direction: 'deposit', chain: 'ETH', asset: 'ETH', amount: '1' });
    expect(eth.body).toMatchObject({ gross: '1.000000000000000000', fee: '0.009000000000000000', min_fee: '0.000500000000000000' });
  });

  it('answers 200 with viable false, net null and AMOUNT_TOO_SMALL for an amount the fee eats', async () => {
    const res = await quote({ direction: 'deposit', chain: 'TRON', asset: 'USDT_TRON', amount: '0.5' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ viable: false, net: null, fee: '1.000000' });
    expect(res.body.warnings).toContain('AMOUNT_TOO_SMALL');
    expect(res.body.warnings).toContain('BELOW_SWEEP_MINIMUM');
  });

  it('answers 400 VALIDATION_ERROR to bad direction, chain, asset, mode, pair, amount or unknown fields', async () => {
    const ok = { direction: 'deposit', chain: 'TRON', asset: 'USDT_TRON', amount: '100' };
    for (const body of [
      { ...ok, direction: 'sideways' },
      { ...ok, chain: 'SOL' },
      { ...ok, asset: 'DOGE' },
      { ...ok, mode: 'maximal' },
      { ...ok, asset: 'USDT_ETH' },
      { ...ok, amount: 100 },
      { ...ok, amount: '1e3' },
      { ...ok, amount: '-5' },
      { ...ok, amount: '0' },
      { ...ok, amount: '1.0000001' },
      { ...ok, amount: '9'.repeat(60_000) },
      { ...ok, surprise: 'field' },
      { direction: 'deposit' },
    ]) {
      const res = await quote(body);
      expect([res.status, res.body.code], JSON.stringify(body).slice(0, 80)).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it('refuses a million-character amount as an oversized body (413), never a 500', async () => {
    const res = await quote({ direction: 'deposit', chain: 'TRON', asset: 'USDT_TRON', amount: '1'.repeat(1_000_000) });
    expect([res.status, res.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('needs a key with at least one :read scope', async () => {
    const created = await call(api.baseUrl, ws.testKey, {
      method: 'POST',
      path: '/v2/api-keys',
      body: JSON.stringify({ label: 'writer', scopes: ['wallets:write'] }),
    });
    const writer = { keyId: created.body.key_id, secret: created.body.secret };
    const res = await quote({ direction: 'deposit', chain: 'TRON', asset: 'USDT_TRON', amount: '100' }, writer);
    expect([res.status, res.body.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });

  it('moves to GROWTH once 30-day volume reaches 100,000 and follows tiers changed with the ops CLI', async () => {
    const other = await createWorkspace(api, 'volume');
    const uow = api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    await uow.run((tx) =>
      tx.ledger.post(
        creditDeposit({
          id: randomUUID(),
          network: 'TRON_TESTNET',
          at: new Date(),
          depositId: randomUUID(),
          workspaceId: other.workspaceId,
          gross: Amount.parse('100000', 'USDT_TRON'),
          fee: Amount.parse('900', 'USDT_TRON'),
        }),
      ),
    );
    const body = { direction: 'deposit', chain: 'TRON', asset: 'USDT_TRON', amount: '1000' };
    expect((await quote(body, other.testKey)).body).toMatchObject({ tier: 'GROWTH', fee: '6.000000', rule: 'PERCENTAGE' });
    const set = await ops('fees', 'tier', 'set', '--name', 'GROWTH', '--min-volume', '100000', '--rate', '0.005');
    expect(set.code).toBe(0);
    expect(set.out.tiers).toContainEqual({ name: 'GROWTH', min_volume_usd: '100000.000000', deposit_rate: '0.005000' });
    expect(set.out.tiers).toContainEqual({ name: 'STANDARD', min_volume_usd: '0.000000', deposit_rate: '0.009000' });
    expect((await quote(body, other.testKey)).body).toMatchObject({ tier: 'GROWTH', fee: '5.000000' });
    expect((await ops('fees', 'tier', 'list')).out.tiers).toHaveLength(3);
    expect((await ops('fees', 'tier', 'set', '--name', 'GROWTH', '--min-volume', '1', '--rate', '2')).code).toBe(2);
  });

  it('applies a per-workspace override set with the ops CLI, warns when it ends within 7 days, and clears it', async () => {
    const soon = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const set = await ops('fees', 'override', 'set', '--workspace', ws.workspaceId, '--rate', '0.004', '--expires-at', soon);
    expect(set).toMatchObject({ code: 0, out: { workspace_id: ws.workspaceId, deposit_rate: '0.004000' } });
    const res = await quote({ direction: 'deposit', chain: 'TRON', asset: 'USDT_TRON', amount: '1000' });
    expect(res.body).toMatchObject({ rule: 'OVERRIDE', override_applied: true, tier: null, fee: '4.000000', warnings: ['OVERRIDE_EXPIRES_SOON'] });
    expect((await ops('fees', 'override', 'clear', '--workspace', ws.workspaceId)).out).toEqual({ workspace_id: ws.workspaceId, cleared: true });
    expect((await quote({ direction: 'deposit', chain: 'TRON', asset: 'USDT_TRON', amount: '1000' })).body).toMatchObject({ tier: 'STANDARD', fee: '9.000000' });
    const past = await ops('fees', 'override', 'set', '--workspace', ws.workspaceId, '--rate', '0.004', '--expires-at', '2001-01-01T00:00:00Z');
    expect(past.code).toBe(2);
  });

  it('leaves a ledger that reconciles after this file\'s activity (ops ledger check)', async () => {
    const check = await ops('ledger', 'check');
    expect(check.code).toBe(0);
    expect(check.out).toMatchObject({ ok: true, unbalanced_entries: [], balance_mismatches: [], negative_balances: [] });
    expect(check.out.entries).toBeGreaterThan(0);
  });
});
