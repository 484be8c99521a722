// ops faucet set | show on the real database: the defaults, an asset's
// limits and the faucet-wide ones changed, and bad settings refused with one
// line, changing nothing; the drip rules then read the operator's limits.
import { describe, expect, it } from 'vitest';
import { FAUCET_COMMANDS } from '../../src/adapters/cli/faucet-commands.js';
import { runOps } from '../../src/adapters/cli/run-ops.js';
import { TOKENS } from '../../src/application/tokens.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'faucet-ops' });

async function ops(...argv: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const out: string[] = [];
  const code = await runOps(FAUCET_COMMANDS, [...argv, '--json'], { resolve: (tok) => t.api.infra.container.resolve(tok as never) }, { out: (s) => out.push(s), err: () => undefined });
  return { code, json: JSON.parse(out[0]!) as Record<string, unknown> };
}
const assetOf = (json: Record<string, unknown>, asset: string) => (json.assets as { asset: string }[]).find((a) => a.asset === asset);

describe('ops faucet', () => {
  it('shows the defaults, sets an asset’s limits and the faucet-wide ones, and the rules use them', async () => {
    const shown = await ops('faucet', 'show');
    expect(shown.json).toMatchObject({ max_items: 5, drips_per_hour: 20 });
    expect(assetOf(shown.json, 'ETH')).toEqual({ asset: 'ETH', default_amount: '0.010000000000000000', cap: '0.050000000000000000', budget_24h: '0.100000000000000000', configured: false });
    expect(assetOf(shown.json, 'USDT_ETH')).toEqual({ asset: 'USDT_ETH', default_amount: '1000.000000', cap: '10000.000000', budget_24h: null, configured: false });
    const set = await ops('faucet', 'set', '--asset', 'ETH', '--cap', '0.08', '--budget', '0.2');
    expect(set.code).toBe(0);
    expect(assetOf(set.json, 'ETH')).toEqual({ asset: 'ETH', default_amount: '0.010000000000000000', cap: '0.080000000000000000', budget_24h: '0.200000000000000000', configured: true });
    expect((await ops('faucet', 'set', '--max-items', '3', '--drips-per-hour', '50')).json).toMatchObject({ max_items: 3, drips_per_hour: 50 });
    const limits = await t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) => tx.faucet.limits());
    expect(limits).toMatchObject({ maxItems: 3, dripsPerHour: 50, assets: { ETH: { cap: 8n * 10n ** 16n, budget: 2n * 10n ** 17n } } });
  });

  it('refuses settings that make no sense, in one line, changing nothing', async () => {
    const before = (await ops('faucet', 'show')).json;
    const refusals = [
      ['faucet', 'set', '--asset', 'USDT_ETH', '--budget', '5'], // tokens are not rationed
      ['faucet', 'set', '--asset', 'USDT_ETH', '--default', '20000'], // over its cap
      ['faucet', 'set', '--asset', 'ETH', '--cap', '1'], // over its budget
      ['faucet', 'set', '--cap', '1'], // which asset?
      ['faucet', 'set', '--asset', 'ETH'], // nothing to set
      ['faucet', 'set'],
      ['faucet', 'set', '--max-items', '0'],
      ['faucet', 'set', '--asset', 'DOGE', '--cap', '1'],
      ['faucet', 'set', '--asset', 'ETH', '--cap', '-1'],
    ];
    for (const argv of refusals) {
      const res = await ops(...argv);
      expect([res.code, res.json.code], argv.join(' ')).toEqual([2, 'VALIDATION_ERROR']);
    }
    expect((await ops('faucet', 'show')).json).toEqual(before);
  });
});
