// The faucet's rules (D9): what one drip may ask for, in the documented
// order of codes, the defaults and caps, the drip rate and the native budgets.
import { describe, expect, it } from 'vitest';
import { DEFAULT_FAUCET_LIMITS, asksNative, checkDripRate, checkNativeBudgets, planDrip } from '../../../src/domain/faucet/faucet.js';
import type { Asset } from '../../../src/domain/money/networks.js';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return (err as { code: string }).code;
  }
};
const plan = (chain: 'ETH' | 'BSC' | 'TRON', items: { symbol: string; amount?: string }[]) => planDrip(chain, items, DEFAULT_FAUCET_LIMITS);

describe('a faucet drip', () => {
  it('gives each asset its default when no amount is named, and takes a named one exactly', () => {
    const items = plan('ETH', [{ symbol: 'USDT_ETH' }, { symbol: 'ETH' }, { symbol: 'USDC_ETH', amount: '2500.5' }]);
    expect(items.map((i) => [i.asset, i.amount.toString()])).toEqual([
      ['USDT_ETH', '1000.000000'],
      ['ETH', '0.010000000000000000'],
      ['USDC_ETH', '2500.500000'],
    ]);
    expect(plan('BSC', [{ symbol: 'BNB' }])[0]!.amount.toString()).toBe('0.050000000000000000');
    expect(asksNative(items)).toBe(true);
    expect(asksNative(plan('TRON', [{ symbol: 'USDT_TRON' }]))).toBe(false);
  });

  it('refuses bad input (400) before any limit (422), each with its own code', () => {
    expect(codeOf(() => plan('ETH', []))).toBe('FAUCET_NO_ASSETS');
    expect(codeOf(() => plan('ETH', [{ symbol: 'USDT_TRON' }]))).toBe('FAUCET_INVALID_ASSET');
    expect(codeOf(() => plan('BSC', [{ symbol: 'DOGE' }]))).toBe('FAUCET_INVALID_ASSET');
    expect(codeOf(() => plan('ETH', [{ symbol: 'USDT_ETH', amount: '0' }]))).toBe('FAUCET_INVALID_AMOUNT');
    expect(codeOf(() => plan('ETH', [{ symbol: 'USDT_ETH', amount: '-1' }]))).toBe('FAUCET_INVALID_AMOUNT');
    expect(codeOf(() => plan('ETH', [{ symbol: 'USDT_ETH', amount: '1e3' }]))).toBe('FAUCET_INVALID_AMOUNT');
    expect(codeOf(() => plan('ETH', [{ symbol: 'USDT_ETH', amount: '1.0000001' }]))).toBe('FAUCET_INVALID_AMOUNT');
    // A bad item among too many is still a 400.
    const six = ['USDT_ETH', 'USDC_ETH', 'EURC_ETH', 'ETH', 'USDT_ETH', 'USDC_ETH'].map((symbol) => ({ symbol }));
    expect(codeOf(() => plan('ETH', [...six, { symbol: 'BNB' }]))).toBe('FAUCET_INVALID_ASSET');
    expect(codeOf(() => plan('ETH', six))).toBe('FAUCET_TOO_MANY_ITEMS');
    expect(codeOf(() => plan('ETH', [{ symbol: 'USDT_ETH' }, { symbol: 'USDT_ETH', amount: '1' }]))).toBe('FAUCET_DUPLICATE_ASSET');
    expect(codeOf(() => plan('ETH', [{ symbol: 'USDT_ETH', amount: '10000.000001' }]))).toBe('FAUCET_AMOUNT_OVER_CAP');
    expect(codeOf(() => plan('ETH', [{ symbol: 'USDT_ETH', amount: '10000' }]))).toBe('ok');
    expect(codeOf(() => plan('ETH', [{ symbol: 'ETH', amount: '0.050000000000000001' }]))).toBe('FAUCET_AMOUNT_OVER_CAP');
    expect(codeOf(() => plan('BSC', [{ symbol: 'BNB', amount: '0.2' }]))).toBe('ok');
  });

  it('allows 20 drips an hour per workspace', () => {
    expect(codeOf(() => checkDripRate(19, DEFAULT_FAUCET_LIMITS))).toBe('ok');
    expect(codeOf(() => checkDripRate(20, DEFAULT_FAUCET_LIMITS))).toBe('FAUCET_RATE_LIMITED');
  });

  it('rations the native currencies by a rolling budget, saying how much was used and in which window', () => {
    const eth = plan('ETH', [{ symbol: 'ETH', amount: '0.05' }, { symbol: 'USDT_ETH' }]);
    const given = (v: bigint) => new Map<Asset, bigint>([['ETH', v]]);
    expect(codeOf(() => checkNativeBudgets(eth, given(50_000_000_000_000_000n), DEFAULT_FAUCET_LIMITS))).toBe('ok'); // 0.05 + 0.05 = 0.1
    let message = '';
    try {
      checkNativeBudgets(eth, given(50_000_000_000_000_001n), DEFAULT_FAUCET_LIMITS);
    } catch (err) {
      message = (err as Error).message;
      expect((err as { code: string }).code).toBe('FAUCET_NATIVE_BUDGET_EXCEEDED');
    }
    expect(message).toMatch(/ETH: 0\.050000000000000001 of the 0\.100000000000000000 budget given in the last 24 hours/);
    // Tokens have no budget.
    expect(codeOf(() => checkNativeBudgets(plan('ETH', [{ symbol: 'USDT_ETH', amount: '10000' }]), new Map(), DEFAULT_FAUCET_LIMITS))).toBe('ok');
  });
});
