// The operator's treasury policy through the ops CLI (issue 31): a cold
// address waits for its cooling-off (48 h unless set) and can be cancelled
// meanwhile; shortening the cooling-off waits too; the limits apply at once;
// a cold address that is not the chain's, whose funds nobody can move, a
// token contract or an address of the service itself is refused, changing
// nothing; every change is kept.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CustodyLoop } from '../../src/adapters/chains/custody-loop.js';
import { createCustodyMetrics } from '../../src/adapters/metrics/metrics.js';
import { WatchTreasuryPolicies } from '../../src/application/custody/watch-treasury-policies.js';
import { ForwardSurplus } from '../../src/application/custody/forward-surplus.js';
import { RecognizeRefills } from '../../src/application/custody/recognize-refills.js';
import { ReconcileCold } from '../../src/application/custody/reconcile-cold.js';
import { TOKENS } from '../../src/application/tokens.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { FakeClock } from '../support/fakes.js';
import { runOps } from '../../src/adapters/cli/run-ops.js';
import { TREASURY_COMMANDS } from '../../src/adapters/cli/treasury-commands.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { TEST_SEED, uniqueCall, useTestApi } from '../support/harness.js';
import { opsEnv, runEntry } from '../support/processes.js';

const t = useTestApi({ workspace: 'treasury-policy' });
const COLD = '0x1111111111111111111111111111111111111111';
const OTHER = '0x2222222222222222222222222222222222222222';
const limits = ['--ceiling', '100', '--float', '50', '--floor', '20'];

async function inProcess(...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const out: string[] = [];
  const code = await runOps(TREASURY_COMMANDS, [...args, '--json'], { resolve: (tok) => t.api.infra.container.resolve(tok) }, { out: (x) => out.push(x), err: () => {} });
  return { code, json: JSON.parse(out.join('')) as Record<string, unknown> };
}
const hoursFromNow = (iso: unknown) => (new Date(iso as string).getTime() - Date.now()) / 3_600_000;
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);

describe('ops treasury policy', () => {
  it('holds a new cold address for 48 h, cancelled on demand; the limits apply at once (as a process, in words)', async () => {
    const env = opsEnv(t.db.url, { DATA_DIR: mkdtempSync(join(tmpdir(), 'wallet-ops-')) });
    const set = await runEntry('src/bootstrap/ops.ts', env, ['treasury', 'policy', 'set', '--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--cold-address', COLD, ...limits]);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^ETH_TESTNET USDT_ETH: cold \(none in force yet\), ceiling 100\.000000, float 50\.000000, floor 20\.000000, cooling-off 48 h\n {2}PENDING: cold 0x1{40} .* takes effect at \S+ unless cancelled: ops treasury policy cancel --chain ETH_TESTNET --asset USDT_ETH/);
    const shown = await inProcess('treasury', 'policy', 'show', '--chain', 'ETH_TESTNET');
    const [policy] = shown.json.policies as { cold_address: string | null; pending: { cold_address: string; effective_at: string } | null }[];
    expect(policy).toMatchObject({ cold_address: null, ceiling: '100.000000', target_float: '50.000000', floor: '20.000000', cooling_off_hours: 48, pending: { cold_address: COLD } });
    expect(hoursFromNow(policy!.pending!.effective_at)).toBeCloseTo(48, 1);
    const cancelled = await inProcess('treasury', 'policy', 'cancel', '--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH');
    expect([cancelled.code, cancelled.json.pending, cancelled.json.cold_address]).toEqual([0, null, null]);
    const again = await inProcess('treasury', 'policy', 'cancel', '--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH');
    expect([again.code, again.json.code]).toEqual([2, 'CONFLICT']);
    const kinds = await sql<{ kind: string }>(`select kind from treasury_policy_events where network = 'ETH_TESTNET' and asset = 'USDT_ETH' order by at, kind`);
    expect(kinds.map((k) => k.kind).sort()).toEqual(['COLD_ADDRESS_CANCELLED', 'COLD_ADDRESS_REQUESTED', 'LIMITS_SET']);
  }, 60_000);

  it('takes a first cold address at once with no cooling-off; later changes wait for the period in force, shortening it too', async () => {
    const first = await inProcess('treasury', 'policy', 'set', '--chain', 'BSC_TESTNET', '--asset', 'USDT_BSC', '--cold-address', COLD, ...limits, '--cooling-off-hours', '0');
    expect(first.json).toMatchObject({ cold_address: COLD, cooling_off_hours: 0, pending: null });
    const raised = await inProcess('treasury', 'policy', 'set', '--chain', 'BSC_TESTNET', '--asset', 'USDT_BSC', ...limits, '--cooling-off-hours', '24');
    expect(raised.json).toMatchObject({ cold_address: COLD, cooling_off_hours: 24, pending: null });
    const moved = await inProcess('treasury', 'policy', 'set', '--chain', 'BSC_TESTNET', '--asset', 'USDT_BSC', '--cold-address', OTHER, '--ceiling', '200', '--float', '50', '--floor', '20');
    expect(moved.json).toMatchObject({ cold_address: COLD, ceiling: '200.000000', pending: { cold_address: OTHER, cooling_off_hours: 24 } });
    expect(hoursFromNow((moved.json.pending as { effective_at: string }).effective_at)).toBeCloseTo(24, 1);
    const shorter = await inProcess('treasury', 'policy', 'set', '--chain', 'BSC_TESTNET', '--asset', 'USDT_BSC', ...limits, '--cooling-off-hours', '0');
    expect(shorter.json).toMatchObject({ cold_address: COLD, cooling_off_hours: 24, pending: { cold_address: OTHER, cooling_off_hours: 0 } });
  });

  it('refuses a cold address that is not the chain’s, whose funds nobody can move, a token contract or the service’s own, and bad limits, changing nothing', async () => {
    const signer = new LocalHdSigner(TEST_SEED);
    const treasury = await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'treasury'));
    const wallet = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDC_ETH' });
    const token = ((await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', '/v2/chains')).body.data as { chain: string; assets: { asset: string; contract_address: string }[] }[])
      .find((c) => c.chain === 'ETH_TESTNET')!
      .assets.find((a) => a.asset === 'USDT_ETH')!.contract_address;
    const before = await sql(`select * from treasury_policies order by network, asset`);
    const eventsBefore = await sql(`select count(*)::int as n from treasury_policy_events`);
    for (const args of [
      ['--cold-address', '0xA15BB66138824a1c7167f5E85b957d04Dd34E468'.toLowerCase(), ...limits],
      ['--cold-address', 'TLBeMi7NQkKVvLbGLHArkb3V17TrWTuNYq', ...limits],
      ['--cold-address', '0x0000000000000000000000000000000000000000', ...limits],
      ['--cold-address', '0x0000000000000000000000000000000000000004', ...limits],
      ['--cold-address', token, ...limits],
      ['--cold-address', treasury, ...limits],
      ['--cold-address', wallet.body.address as string, ...limits],
      ['--cold-address', COLD, '--ceiling', '100', '--float', '150', '--floor', '20'],
      ['--cold-address', COLD, '--ceiling', '100', '--float', '50', '--floor', '60'],
      ['--cold-address', COLD, '--ceiling', '0', '--float', '0', '--floor', '0'],
      ['--cold-address', COLD, '--ceiling', '100.0000001', '--float', '50', '--floor', '20'],
      ['--cold-address', COLD, ...limits, '--cooling-off-hours', '-1'],
      ['--cold-address', COLD, ...limits, '--cooling-off-hours', '8761'],
      ['--cold-address', COLD, '--ceiling', '100', '--float', '50'],
      [...limits],
    ]) {
      const res = await inProcess('treasury', 'policy', 'set', '--chain', 'ETH_TESTNET', '--asset', 'USDC_ETH', ...args);
      expect([res.code, res.json.code], args.join(' ')).toEqual([2, 'VALIDATION_ERROR']);
    }
    const otherChain = await inProcess('treasury', 'policy', 'set', '--chain', 'ETH_TESTNET', '--asset', 'USDT_BSC', '--cold-address', COLD, ...limits);
    expect([otherChain.code, otherChain.json.code]).toEqual([2, 'VALIDATION_ERROR']);
    expect(await sql(`select * from treasury_policies order by network, asset`)).toEqual(before);
    expect(await sql(`select count(*)::int as n from treasury_policy_events`)).toEqual(eventsBefore);
  });
});

describe('the chain-worker announces a cold address change at once', () => {
  it('warns once per change with the way to cancel it, sets the metric, and says when it comes into force', async () => {
    const uow = t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);
    const clock = new FakeClock(new Date());
    const lines: { level: string; msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as { level: string; msg: string }) });
    const registry = new Registry();
    // No network can send here: the loop only watches the policies.
    const loop = new CustodyLoop(new WatchTreasuryPolicies(uow, clock), t.api.infra.container.resolve(ForwardSurplus), t.api.infra.container.resolve(RecognizeRefills), t.api.infra.container.resolve(ReconcileCold), [], { intervalMs: 1000 }, logger, createCustodyMetrics(registry));
    const pendingMetric = async () =>
      ((await registry.getSingleMetricAsString('treasury_cold_address_change_pending')).match(/network="ETH_TESTNET",asset="EURC_ETH"} (\d)/) ?? [])[1];
    const set = await inProcess('treasury', 'policy', 'set', '--chain', 'ETH_TESTNET', '--asset', 'EURC_ETH', '--cold-address', COLD, ...limits, '--cooling-off-hours', '0');
    expect(set.json).toMatchObject({ cold_address: COLD, pending: null });
    await inProcess('treasury', 'policy', 'set', '--chain', 'ETH_TESTNET', '--asset', 'EURC_ETH', ...limits, '--cooling-off-hours', '1');
    const moved = await inProcess('treasury', 'policy', 'set', '--chain', 'ETH_TESTNET', '--asset', 'EURC_ETH', '--cold-address', OTHER, ...limits);
    expect(moved.json).toMatchObject({ cold_address: COLD, pending: { cold_address: OTHER } });
    await loop.pass();
    await loop.pass();
    const warnings = lines.filter((l) => l.msg.includes('SECURITY') && l.msg.includes('ETH_TESTNET EURC_ETH'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toContain(`to change to ${OTHER}`);
    expect(warnings[0]!.msg).toContain('ops treasury policy cancel --chain ETH_TESTNET --asset EURC_ETH');
    expect(await pendingMetric()).toBe('1');
    // The cooling-off (1 h) ends: the change comes into force, once, and is said.
    clock.advance(3_600_000 + 60_000);
    await loop.pass();
    await loop.pass();
    expect(await pendingMetric()).toBe('0');
    expect(lines.filter((l) => l.msg.includes(`ETH_TESTNET EURC_ETH is now ${OTHER}`))).toHaveLength(1);
    const inForceEvents = await sql<{ n: number }>(`select count(*)::int as n from treasury_policy_events where asset = 'EURC_ETH' and kind = 'COLD_ADDRESS_IN_FORCE'`);
    expect(inForceEvents).toEqual([{ n: 1 }]);
    expect((await inProcess('treasury', 'policy', 'show', '--chain', 'ETH_TESTNET', '--asset', 'EURC_ETH')).json.policies).toMatchObject([{ cold_address: OTHER, pending: null }]);
  });
});
