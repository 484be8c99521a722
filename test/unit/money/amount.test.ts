import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Amount } from '../../../src/domain/money/amount.js';
import { ASSETS, ASSET_SPECS } from '../../../src/domain/money/networks.js';
import { formatRate, parseRate, ratioAsRate } from '../../../src/domain/money/rate.js';

describe('Amount.parse (docs/api.md#amounts)', () => {
  it('reads whole numbers and decimals up to the asset precision, printing exactly its places', () => {
    expect(Amount.parse('12.5', 'USDT_BSC').toString()).toBe('12.500000');
    expect(Amount.parse('12', 'USDT_TRON').units).toBe(12_000_000n);
    expect(Amount.parse('0.000001', 'USDC_ETH').toString()).toBe('0.000001');
    expect(Amount.parse('1.000000000000000001', 'ETH').toString()).toBe('1.000000000000000001');
    expect(Amount.parse('100', 'BNB').toString()).toBe('100.000000000000000000');
  });

  it.each([
    ['0', 'zero'],
    ['0.000000', 'zero with places'],
    ['-1', 'negative'],
    ['+1', 'leading plus'],
    ['1e3', 'exponent'],
    [' 1', 'leading whitespace'],
    ['1 ', 'trailing whitespace'],
    ['1.', 'dangling point'],
    ['.5', 'no whole part'],
    ['01', 'leading zero'],
    ['1,5', 'comma'],
    ['1.0000001', 'more than 6 places for a stablecoin'],
    ['NaN', 'not a number'],
    ['Infinity', 'infinity'],
    ['0x10', 'hex'],
    ['1'.repeat(1_000_000), 'a million digits'],
  ])('refuses %j (%s) with VALIDATION_ERROR naming the field', (input) => {
    expect(() => Amount.parse(input, 'USDT_TRON', 'amount')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    try {
      Amount.parse(input, 'USDT_TRON', 'amount');
    } catch (err) {
      expect((err as { details: { path: string }[] }).details[0]!.path).toBe('amount');
    }
  });

  it('refuses JSON numbers, null and objects', () => {
    for (const v of [12.5, 100, null, undefined, {}, [], true, 10n]) {
      expect(() => Amount.parse(v, 'USDT_ETH')).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    }
  });

  it('converts to and from on-chain units: USDT_BSC has 18 decimals on chain, dust rounds down', () => {
    const a = Amount.parse('12.5', 'USDT_BSC');
    expect(a.toChainUnits()).toBe(12_500_000_000_000_000_000n);
    expect(Amount.fromChainUnits('USDT_BSC', 12_500_000_999_999_999_999n).toString()).toBe('12.500000');
    expect(Amount.fromChainUnits('USDT_TRON', 1_234_567n).toString()).toBe('1.234567');
  });

  it('round-trips every amount through its string (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ASSETS), fc.bigInt({ min: 1n, max: 10n ** 30n }), (asset, units) => {
        const a = Amount.ofUnits(asset, units);
        const s = a.toString();
        expect(s.split('.')[1]!.length).toBe(ASSET_SPECS[asset].apiDecimals);
        expect(Amount.parse(s, asset).units).toBe(units);
      }),
    );
  });

  it('round-trips on-chain units exactly for amounts at API precision (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ASSETS), fc.bigInt({ min: 0n, max: 10n ** 30n }), (asset, units) => {
        const a = Amount.ofUnits(asset, units);
        expect(Amount.fromChainUnits(asset, a.toChainUnits()).units).toBe(units);
      }),
    );
  });
});

describe('rates', () => {
  it('parses and prints fractions with six places', () => {
    expect(parseRate('0.009')).toBe(9000n);
    expect(formatRate(3500n)).toBe('0.003500');
    expect(ratioAsRate(1_000_000n, 100_000_000n)).toBe('0.010000');
    expect(() => parseRate('1')).toThrow();
    expect(() => parseRate('0.0000001')).toThrow();
    expect(() => parseRate('-0.1')).toThrow();
  });
});
