// Sweep amounts and policies (ADR 0027): the top-up is what the address lacks
// for gas × fee × margin; a native sweep keeps back exactly its own gas at the
// fee cap; the default minimums and the schedule of an operator's policy.
import { describe, expect, it } from 'vitest';
import {
  defaultSweepPolicy,
  effectivePolicies,
  nativeSweepAmount,
  policyDue,
  sweepGasBudget,
  topUpAmount,
  tronSweepBudget,
  withMargin,
} from '../../../src/domain/transfers/sweep.js';
import { gasCurrencyOf, isNativeCurrency } from '../../../src/domain/money/networks.js';

const gwei = 10n ** 9n;

describe('sweep amounts', () => {
  it('budgets gas limit × max fee plus the margin, rounded up, and tops up only what the address lacks', () => {
    const budget = sweepGasBudget(60_000n, { maxFeePerGas: 3n * gwei, maxPriorityFeePerGas: gwei });
    expect(budget).toBe(270_000n * gwei); // 60,000 × 3 gwei × 1.5
    expect(topUpAmount(budget, 0n)).toBe(budget);
    expect(topUpAmount(budget, 100_000n * gwei)).toBe(170_000n * gwei);
    expect(topUpAmount(budget, budget)).toBe(0n);
    expect(topUpAmount(budget, budget + 1n)).toBe(0n);
  });

  it('TRON: sweeps once the address holds its energy and bandwidth burn, tops it up to that burn plus the margin, and caps energy at the margin', () => {
    // 50,000 energy at 210 sun, 400 bytes at 1,000 sun.
    const budget = tronSweepBudget({ energy: 10_500_000n, bandwidth: 400_000n, activation: 0n });
    expect(budget).toEqual({ required: 10_900_000n, topUpTo: 16_350_000n, feeLimit: 15_750_000n });
    expect(withMargin(1n)).toBe(2n); // rounded up
    expect(withMargin(0n)).toBe(0n);
  });

  it('books gas in the network’s native currency, TRX included, which is not an API asset', () => {
    expect([gasCurrencyOf('ETH_MAINNET'), gasCurrencyOf('BSC_TESTNET'), gasCurrencyOf('TRON_TESTNET')]).toEqual(['ETH', 'BNB', 'TRX']);
    expect([isNativeCurrency('TRX'), isNativeCurrency('ETH'), isNativeCurrency('USDT_TRON')]).toEqual([true, true, false]);
  });

  it('sweeps a native balance minus its own gas at the fee cap, and nothing when the gas is not covered', () => {
    expect(nativeSweepAmount(10n ** 16n, 21_000n, 10n * gwei)).toBe(10n ** 16n - 210_000n * gwei);
    expect(nativeSweepAmount(210_000n * gwei, 21_000n, 10n * gwei)).toBeNull();
    expect(nativeSweepAmount(0n, 21_000n, 10n * gwei)).toBeNull();
  });
});

describe('sweep policies', () => {
  it('defaults to the documented minimums, the same on mainnet and testnet, sweeping as soon as reached', () => {
    const minimums = Object.fromEntries(
      (['USDT_TRON', 'USDT_BSC', 'USDT_ETH', 'USDC_ETH', 'EURC_ETH', 'ETH', 'BNB'] as const).map((a) => [a, defaultSweepPolicy('ETH_TESTNET', a).minimum]),
    );
    expect(minimums).toEqual({ USDT_TRON: 10_000_000n, USDT_BSC: 5_000_000n, USDT_ETH: 50_000_000n, USDC_ETH: 50_000_000n, EURC_ETH: 50_000_000n, ETH: 10n ** 16n, BNB: 10n ** 16n });
    expect(defaultSweepPolicy('BSC_TESTNET', 'USDT_BSC')).toMatchObject({ minimum: 5_000_000n, intervalSeconds: 0 });
    expect(defaultSweepPolicy('ETH_MAINNET', 'ETH')).toMatchObject({ minimum: 10n ** 16n });
  });

  it("takes the operator's policy where set and the default elsewhere", () => {
    const set = { network: 'ETH_TESTNET' as const, asset: 'USDT_ETH' as const, minimum: 1_000_000n, intervalSeconds: 600, lastRunAt: null };
    const all = effectivePolicies('ETH_TESTNET', ['USDT_ETH', 'USDC_ETH'], [set, { ...set, network: 'ETH_MAINNET' }]);
    expect(all).toEqual([set, defaultSweepPolicy('ETH_TESTNET', 'USDC_ETH')]);
  });

  it('starts sweeps at most once per interval of a batching schedule', () => {
    const at = (s: number) => new Date(Date.UTC(2026, 10, 25, 12, 0, s));
    const p = { ...defaultSweepPolicy('ETH_TESTNET', 'USDT_ETH'), intervalSeconds: 30 };
    expect(policyDue(p, at(0))).toBe(true);
    expect(policyDue({ ...p, lastRunAt: at(0) }, at(29))).toBe(false);
    expect(policyDue({ ...p, lastRunAt: at(0) }, at(30))).toBe(true);
    expect(policyDue({ ...p, intervalSeconds: 0, lastRunAt: at(0) }, at(0))).toBe(true);
  });
});
