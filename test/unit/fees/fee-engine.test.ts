// The fee engine (docs/api.md#fee-schedule) with worked examples written out, plus properties.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { charge, grossUp, quote } from '../../../src/domain/fees/fee-engine.js';
import { DEFAULT_ASSET_FEES, DEFAULT_TIERS, type FeeContext } from '../../../src/domain/fees/fee-schedule.js';
import { Amount } from '../../../src/domain/money/amount.js';

const NOW = new Date('2026-06-01T00:00:00Z');
const usd = (n: number) => BigInt(n) * 1_000_000n;
const ctx = (over: Partial<FeeContext> = {}): FeeContext => ({
  tiers: DEFAULT_TIERS,
  override: null,
  volumeUsd: 0n,
  assetFees: DEFAULT_ASSET_FEES,
  now: NOW,
  ...over,
});
const tron = (s: string) => Amount.parse(s, 'USDT_TRON');

describe('deposits (charge mode)', () => {
  it('100.000000 USDT_TRON on STANDARD: 0.9 % would be 0.900000, so the minimum 1.000000 applies (MIN_FEE)', () => {
    const q = quote('deposit', 'charge', tron('100'), ctx());
    expect(q.charge.fee.toString()).toBe('1.000000');
    expect(q.charge.net.toString()).toBe('99.000000');
    expect(q.charge.rule).toBe('MIN_FEE');
    expect(q.charge.tier).toBe('STANDARD');
    expect(q.appliedRate).toBe('0.009000');
    expect(q.effectiveRate).toBe('0.010000');
    expect(q.warnings).toEqual(['MIN_FEE_DOMINATES']);
    expect(q.viable).toBe(true);
  });

  it('1,000.000000 USDT_TRON on STANDARD: 0.9 % = 9.000000 (PERCENTAGE), net 991.000000', () => {
    const q = quote('deposit', 'charge', tron('1000'), ctx());
    expect([q.charge.fee.toString(), q.charge.net.toString(), q.charge.rule]).toEqual(['9.000000', '991.000000', 'PERCENTAGE']);
    expect(q.warnings).toEqual([]);
  });

  it('rounds a fee up to the asset precision: 1,000.000001 × 0.9 % = 9.000000009 → 9.000001', () => {
    expect(charge('deposit', tron('1000.000001'), ctx()).fee.toString()).toBe('9.000001');
  });

  it('uses GROWTH (0.60 %) from 100,000 USD of 30-day volume and SCALE (0.35 %) from 1,000,000', () => {
    expect(charge('deposit', tron('1000'), ctx({ volumeUsd: usd(99_999) })).tier).toBe('STANDARD');
    const growth = charge('deposit', tron('1000'), ctx({ volumeUsd: usd(100_000) }));
    expect([growth.tier, growth.fee.toString()]).toEqual(['GROWTH', '6.000000']);
    const scale = charge('deposit', tron('1000'), ctx({ volumeUsd: usd(1_000_000) }));
    expect([scale.tier, scale.fee.toString()]).toEqual(['SCALE', '3.500000']);
  });

  it('uses the lowest tier, not a cheaper one, when the operator left no tier at zero volume', () => {
    const tiers = [
      { name: 'SMALL', minVolumeUsd: usd(10), depositRatePpm: 9000n },
      { name: 'BIG', minVolumeUsd: usd(1000), depositRatePpm: 1000n },
    ];
    expect(charge('deposit', tron('1000'), ctx({ tiers, volumeUsd: 0n })).tier).toBe('SMALL');
    expect(charge('deposit', tron('1000'), ctx({ tiers, volumeUsd: usd(5000) })).tier).toBe('BIG');
  });

  it('applies per-asset minimums: 10 USDT_ETH pays 3.000000, 10 USDT_BSC pays 0.200000, 0.01 ETH pays 0.0005', () => {
    expect(charge('deposit', Amount.parse('10', 'USDT_ETH'), ctx()).fee.toString()).toBe('3.000000');
    expect(charge('deposit', Amount.parse('10', 'USDT_BSC'), ctx()).fee.toString()).toBe('0.200000');
    expect(charge('deposit', Amount.parse('0.01', 'ETH'), ctx()).fee.toString()).toBe('0.000500000000000000');
  });

  it('warns BELOW_SWEEP_MINIMUM under the sweep minimum (USDT_TRON 10)', () => {
    expect(quote('deposit', 'charge', tron('9.999999'), ctx()).warnings).toContain('BELOW_SWEEP_MINIMUM');
    expect(quote('deposit', 'charge', tron('10'), ctx()).warnings).not.toContain('BELOW_SWEEP_MINIMUM');
  });

  it('reports an amount that leaves no positive net as not viable (AMOUNT_TOO_SMALL), not as an error', () => {
    const q = quote('deposit', 'charge', tron('1'), ctx());
    expect(q.viable).toBe(false);
    expect(q.charge.net.isPositive()).toBe(false);
    expect(q.warnings).toEqual(['BELOW_SWEEP_MINIMUM', 'MIN_FEE_DOMINATES', 'AMOUNT_TOO_SMALL']);
    expect(quote('deposit', 'charge', tron('0.5'), ctx()).viable).toBe(false);
  });
});

describe('overrides', () => {
  const override = (days: number) => ({ workspaceId: 'w', depositRatePpm: 4000n, expiresAt: new Date(NOW.getTime() + days * 86_400_000) });

  it('replaces the tier rate (OVERRIDE, no tier) while it lasts', () => {
    const c = charge('deposit', tron('1000'), ctx({ override: override(30), volumeUsd: usd(2_000_000) }));
    expect([c.rule, c.fee.toString(), c.tier, c.overrideApplied]).toEqual(['OVERRIDE', '4.000000', null, true]);
    expect(quote('deposit', 'charge', tron('1000'), ctx({ override: override(30) })).warnings).toEqual([]);
  });

  it('warns OVERRIDE_EXPIRES_SOON within 7 days of its end, and is ignored once expired', () => {
    expect(quote('deposit', 'charge', tron('1000'), ctx({ override: override(7) })).warnings).toEqual(['OVERRIDE_EXPIRES_SOON']);
    const expired = charge('deposit', tron('1000'), ctx({ override: override(-1) }));
    expect([expired.rule, expired.tier, expired.overrideApplied]).toEqual(['PERCENTAGE', 'STANDARD', false]);
  });

  it('keeps the minimum fee under an override (MIN_FEE, override still reported)', () => {
    const c = charge('deposit', tron('100'), ctx({ override: override(30) }));
    expect([c.rule, c.fee.toString(), c.overrideApplied]).toEqual(['MIN_FEE', '1.000000', true]);
  });
});

describe('withdrawals', () => {
  it('charge a flat fee with applied rate 0: 100 USDT_TRON → fee 2.000000, net 98.000000 (FLAT)', () => {
    const q = quote('withdrawal', 'charge', tron('100'), ctx());
    expect([q.charge.fee.toString(), q.charge.net.toString(), q.charge.rule, q.appliedRate]).toEqual([
      '2.000000',
      '98.000000',
      'FLAT',
      '0.000000',
    ]);
    expect(q.charge.flatFee?.toString()).toBe('2.000000');
    expect(q.charge.minFee).toBeNull();
    expect(q.warnings).toEqual([]);
  });

  it('are not viable when the flat fee takes everything', () => {
    expect(quote('withdrawal', 'charge', tron('2'), ctx()).viable).toBe(false);
    expect(quote('withdrawal', 'charge', Amount.parse('5.000001', 'USDC_ETH'), ctx()).viable).toBe(true);
  });
});

describe('gross_up', () => {
  it('net 100.000000 USDT_TRON deposit → gross 101.000000: its charge-mode net is ≥ 100, one base unit less is < 100', () => {
    const q = quote('deposit', 'gross_up', tron('100'), ctx());
    expect(q.charge.gross.toString()).toBe('101.000000');
    expect(q.feeBasis).toBe('net');
    expect(charge('deposit', q.charge.gross, ctx()).net.gte(tron('100'))).toBe(true);
    const less = Amount.ofUnits('USDT_TRON', q.charge.gross.units - 1n);
    expect(charge('deposit', less, ctx()).net.lt(tron('100'))).toBe(true);
  });

  it('net 1,000.000000 on STANDARD → gross 1,009.081736 (fee ceil(9.081735624) = 9.081736; one unit less nets 999.999999)', () => {
    const gross = grossUp('deposit', tron('1000'), ctx());
    expect(gross.toString()).toBe('1009.081736');
    expect(charge('deposit', gross, ctx()).net.gte(tron('1000'))).toBe(true);
    expect(charge('deposit', Amount.ofUnits('USDT_TRON', gross.units - 1n), ctx()).net.lt(tron('1000'))).toBe(true);
  });

  it('withdrawal: gross = net + flat fee', () => {
    expect(grossUp('withdrawal', tron('98'), ctx()).toString()).toBe('100.000000');
  });
});

describe('fee arithmetic (properties)', () => {
  const assets = fc.constantFrom('USDT_TRON', 'USDT_BSC', 'USDT_ETH', 'USDC_ETH', 'EURC_ETH', 'ETH', 'BNB' as const);
  const volume = fc.bigInt({ min: 0n, max: usd(5_000_000) });

  it('net + fee = gross exactly; the fee never falls below the rate or the minimum', () => {
    fc.assert(
      fc.property(assets, fc.bigInt({ min: 1n, max: 10n ** 30n }), volume, (asset, units, v) => {
        const c = charge('deposit', Amount.ofUnits(asset, units), ctx({ volumeUsd: v }));
        expect(c.net.units + c.fee.units).toBe(units);
        expect(c.fee.units * 1_000_000n).toBeGreaterThanOrEqual(units * c.appliedRatePpm);
        expect(c.fee.units).toBeGreaterThanOrEqual(DEFAULT_ASSET_FEES[asset].minDepositFee);
        expect(c.fee.units).toBeLessThanOrEqual(
          DEFAULT_ASSET_FEES[asset].minDepositFee + (units * c.appliedRatePpm) / 1_000_000n + 1n,
        );
      }),
    );
  });

  it('gross_up gives the smallest gross whose net reaches the amount, deposits and withdrawals', () => {
    fc.assert(
      fc.property(assets, fc.bigInt({ min: 1n, max: 10n ** 28n }), volume, fc.constantFrom('deposit', 'withdrawal' as const), (asset, units, v, dir) => {
        const c = ctx({ volumeUsd: v });
        const net = Amount.ofUnits(asset, units);
        const gross = grossUp(dir, net, c);
        expect(charge(dir, gross, c).net.gte(net)).toBe(true);
        expect(charge(dir, Amount.ofUnits(asset, gross.units - 1n), c).net.lt(net)).toBe(true);
      }),
    );
  });
});
