// The operator's sweep policy through the ops CLI as a process against the
// real database: set a minimum and a batching schedule, show it next to the
// defaults, refuse bad input (an asset of another chain, too many places, a
// zero or negative minimum, a bad interval) changing nothing; and the
// treasury status of a network with no node lists its service addresses.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOps } from '../../src/adapters/cli/run-ops.js';
import { SWEEP_COMMANDS } from '../../src/adapters/cli/sweep-commands.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { uniqueCall, useTestApi } from '../support/harness.js';
import { opsEnv, runEntry } from '../support/processes.js';

const t = useTestApi({ workspace: 'sweep-ops' });

async function ops(...args: string[]): Promise<{ code: number | null; json: Record<string, unknown> }> {
  const res = await runEntry('src/bootstrap/ops.ts', opsEnv(t.db.url, { DATA_DIR: mkdtempSync(join(tmpdir(), 'wallet-ops-')) }), [...args, '--json']);
  return { code: res.code, json: JSON.parse(res.stdout) as Record<string, unknown> };
}

describe('ops sweep policy', () => {
  it('sets a minimum and a schedule, and shows it next to the defaults', async () => {
    const set = await ops('sweep', 'policy', 'set', '--chain', 'BSC_TESTNET', '--asset', 'USDT_BSC', '--minimum', '7.5', '--interval-seconds', '600');
    expect(set).toEqual({ code: 0, json: { chain: 'BSC_TESTNET', asset: 'USDT_BSC', minimum: '7.500000', interval_seconds: 600, configured: true } });
    const one = await ops('sweep', 'policy', 'show', '--chain', 'BSC_TESTNET', '--asset', 'BNB');
    expect((one.json.policies as { asset: string }[]).map((p) => p.asset)).toEqual(['BNB']);
    const shown = await ops('sweep', 'policy', 'show', '--chain', 'BSC_TESTNET');
    expect(shown.json.policies).toEqual([
      { chain: 'BSC_TESTNET', asset: 'USDT_BSC', minimum: '7.500000', interval_seconds: 600, configured: true },
      { chain: 'BSC_TESTNET', asset: 'BNB', minimum: '0.010000000000000000', interval_seconds: 0, configured: false },
    ]);
  });

  /** The same commands in this process, on the test api's container (each ops process costs seconds). */
  async function inProcess(...args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
    const out: string[] = [];
    const code = await runOps(SWEEP_COMMANDS, [...args, '--json'], { resolve: (tok) => t.api.infra.container.resolve(tok) }, { out: (x) => out.push(x), err: () => {} });
    return { code, json: JSON.parse(out.join('')) as Record<string, unknown> };
  }

  it('refuses bad input with VALIDATION_ERROR and exit 2, changing nothing', async () => {
    const before = (await inProcess('sweep', 'policy', 'show')).json;
    for (const args of [
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_BSC', '--minimum', '5'],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--minimum', '5.0000001'],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--minimum', '0'],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--minimum', '-1'],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--minimum', '1e3'],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--minimum', '5', '--interval-seconds', '-1'],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--minimum', '5', '--interval-seconds', ''],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--minimum', '5', '--interval-seconds', ' 7 '],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--minimum', '5', '--interval-seconds', '1e3'],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--minimum', '5', '--interval-seconds', '0x10'],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH', '--minimum', '5', '--interval-seconds', '604801'],
      ['--chain', 'ETH_TESTNET', '--chain', 'BSC_TESTNET', '--asset', 'USDT_ETH', '--minimum', '5'],
      ['--chain', 'ETH_TESTNET', '--asset', 'USDT_ETH'],
      ['--chain', 'NOPE', '--asset', 'USDT_ETH', '--minimum', '5'],
    ]) {
      const res = await inProcess('sweep', 'policy', 'set', ...args);
      expect([res.code, res.json.code], args.join(' ')).toEqual([2, 'VALIDATION_ERROR']);
    }
    expect((await inProcess('sweep', 'policy', 'show')).json).toEqual(before);
  });
});

describe('sweep minimums in fee quotes', () => {
  it("warns BELOW_SWEEP_MINIMUM against the operator's minimum of the key's network, not the default", async () => {
    const quote = async () =>
      (await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/fees/quote', { direction: 'deposit', chain: 'ETH', asset: 'USDC_ETH', amount: '25' })).body
        .warnings as string[];
    expect(await quote()).toContain('BELOW_SWEEP_MINIMUM'); // default minimum 50
    const code = await runOps(SWEEP_COMMANDS, ['sweep', 'policy', 'set', '--chain', 'ETH_TESTNET', '--asset', 'USDC_ETH', '--minimum', '20', '--json'], {
      resolve: (tok) => t.api.infra.container.resolve(tok),
    }, { out: () => {}, err: () => {} });
    expect(code).toBe(0);
    expect(await quote()).not.toContain('BELOW_SWEEP_MINIMUM');
    await runOps(SWEEP_COMMANDS, ['sweep', 'policy', 'set', '--chain', 'ETH_MAINNET', '--asset', 'USDC_ETH', '--minimum', '500'], { resolve: (tok) => t.api.infra.container.resolve(tok) }, { out: () => {}, err: () => {} });
    expect(await quote()).not.toContain('BELOW_SWEEP_MINIMUM'); // a mainnet policy is not the test key's
  });
});

describe('ops treasury status', () => {
  it("lists a node-less network's treasury, gas tank and faucet dispenser, with no balances", async () => {
    const res = await ops('treasury', 'status', '--chain', 'ETH_MAINNET');
    expect(res.code).toBe(0);
    const signer = new LocalHdSigner('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
    expect(res.json).toEqual({
      networks: [
        {
          network: 'ETH_MAINNET',
          node: false,
          treasury: { address: await signer.deriveAddress('ETH', servicePath('ETH_MAINNET', 'treasury')), balances: null },
          gas_tank: { address: await signer.deriveAddress('ETH', servicePath('ETH_MAINNET', 'gasTank')), balances: null },
          faucet_dispenser: { address: await signer.deriveAddress('ETH', servicePath('ETH_MAINNET', 'faucet')), balances: null },
        },
      ],
    });
  });
});
