import { parseTrx, trx } from '../../../src/application/energy/manage-energy.js';
import { describe, expect, it } from 'vitest';
import {
  delegableStake,
  energyAvailable,
  energyOfStake,
  energyWithMargin,
  freeBandwidthAvailable,
  stakeForEnergy,
  unfreezingAt,
} from '../../../src/domain/energy/resources.js';

// Mainnet-like figures: 180 billion energy a day shared by 18 billion staked TRX (10 energy per TRX).
const network = { totalEnergyLimit: 180_000_000_000n, totalEnergyWeight: 18_000_000_000n };

describe('TRON energy arithmetic (java-tron rules)', () => {
  it('gives a stake its share of the daily energy, by whole TRX', () => {
    expect(energyOfStake(6_500n * 1_000_000n, network)).toBe(65_000n);
    expect(energyOfStake(6_500n * 1_000_000n + 999_999n, network)).toBe(65_000n); // part of a TRX yields nothing
    expect(energyOfStake(1_000_000n, { totalEnergyLimit: 10n, totalEnergyWeight: 0n })).toBe(0n);
  });

  it('delegates at least the energy asked for, in whole TRX, one TRX over the exact share', () => {
    const sun = stakeForEnergy(130_000n, network);
    expect(sun % 1_000_000n).toBe(0n);
    expect(sun).toBe(13_001n * 1_000_000n);
    expect(energyOfStake(sun, network)).toBeGreaterThanOrEqual(130_000n);
    // An odd ratio still rounds up to enough.
    const odd = { totalEnergyLimit: 90_000_000_000n, totalEnergyWeight: 17_123_456_789n };
    expect(energyOfStake(stakeForEnergy(64_285n, odd), odd)).toBeGreaterThanOrEqual(64_285n);
    expect(stakeForEnergy(1n, network)).toBe(2_000_000n);
    expect(() => stakeForEnergy(1n, { totalEnergyLimit: 0n, totalEnergyWeight: 1n })).toThrow(/no energy limit/);
  });

  it('may delegate only the stake its own usage does not stand for', () => {
    // 10,000 TRX staked = 100,000 energy; 65,000 used stands for 6,500 TRX.
    expect(delegableStake({ staked: 10_000n * 1_000_000n }, { ...network, energyUsed: 65_000n })).toBe(3_500n * 1_000_000n);
    expect(delegableStake({ staked: 10_000n * 1_000_000n }, { ...network, energyUsed: 0n })).toBe(10_000n * 1_000_000n);
    expect(delegableStake({ staked: 10_000n * 1_000_000n }, { ...network, energyUsed: 200_000n })).toBe(0n);
    // One energy of usage takes the whole TRX it touches.
    expect(delegableStake({ staked: 10_000n * 1_000_000n }, { ...network, energyUsed: 1n })).toBe(9_999n * 1_000_000n);
  });

  it('counts energy and free bandwidth left, never below zero', () => {
    expect(energyAvailable({ energyLimit: 100n, energyUsed: 30n })).toBe(70n);
    expect(energyAvailable({ energyLimit: 100n, energyUsed: 130n })).toBe(0n);
    expect(freeBandwidthAvailable({ freeBandwidthLimit: 600n, freeBandwidthUsed: 345n })).toBe(255n);
    expect(freeBandwidthAvailable({ freeBandwidthLimit: 600n, freeBandwidthUsed: 700n })).toBe(0n);
  });

  it('splits unstaked TRX into withdrawable and waiting at a time', () => {
    const stake = { unfreezing: [{ amount: 5n, expiresAt: 1000 }, { amount: 7n, expiresAt: 2000 }] };
    expect(unfreezingAt(stake, 999)).toEqual({ withdrawable: 0n, waiting: 12n });
    expect(unfreezingAt(stake, 1000)).toEqual({ withdrawable: 5n, waiting: 7n });
    expect(unfreezingAt(stake, 5000)).toEqual({ withdrawable: 12n, waiting: 0n });
  });

  it('adds the margin over the estimate, rounded up', () => {
    expect(energyWithMargin(65_000n, 10)).toBe(71_500n);
    expect(energyWithMargin(64_285n, 10)).toBe(70_714n);
    expect(energyWithMargin(100n, 0)).toBe(100n);
    expect(() => energyWithMargin(100n, -1)).toThrow();
    expect(() => energyWithMargin(100n, 1.5)).toThrow();
  });
});

describe('TRX figures of the energy commands', () => {
  it('writes sun as TRX, keeping the sign of a shortfall below one TRX', () => {
    expect(trx(0n)).toBe('0');
    expect(trx(1_500_000n)).toBe('1.5');
    expect(trx(12_000_000n)).toBe('12');
    expect(trx(-500_000n)).toBe('-0.5');
    expect(trx(-2_000_001n)).toBe('-2.000001');
    expect(parseTrx('10000', 'trx')).toBe(10_000_000_000n);
  });
});
