// The stand-in's Stake 2.0 model on its own: java-tron's formulas and refusals, time moved by a fake clock.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAINNET_LIKE_RULES, TronResources, UNFREEZE_MAX_TIMES, chargeCall, type Outcome } from '../../../src/adapters/sandbox/tron-resources.js';

const TRX = 1_000_000n;
const A = `41${'a'.repeat(40)}`;
const B = `41${'b'.repeat(40)}`;
const HOUR = 3_600_000;
const someone = { exists: true, isContract: false };

function model(file: string | null = null) {
  const clock = { now: 1_700_000_000_000 };
  const r = new TronResources({ ...MAINNET_LIKE_RULES, windowMs: 24n * 3_600_000n, unfreezeDelayMs: 14n * 24n * 3_600_000n }, file, () => clock.now);
  return { r, clock };
}
const ok = (o: Outcome) => {
  if ('error' in o) throw new Error(o.error);
  o.commit();
  return o;
};
const refusal = (o: Outcome) => ('error' in o ? o.error : 'accepted');

describe('the TRON stand-in resource model', () => {
  it('gives a stake energy in proportion to the network weight (1 TRX ≈ 10 energy a day)', () => {
    const { r } = model();
    ok(r.freeze(A, 1_000n * TRX, 5_000n * TRX));
    expect(r.totalEnergyWeight()).toBe(18_000_000_000n + 1_000n);
    expect(r.energyLimit(A)).toBe((1_000n * TRX * 180_000_000_000n) / (TRX * 18_000_001_000n));
    expect(r.energyLimit(A)).toBe(9_999n);
  });

  it('refuses stakes below 1 TRX or above the balance, with java-tron’s words', () => {
    const { r } = model();
    expect(refusal(r.freeze(A, 999_999n, 10n * TRX))).toBe('frozenBalance must be greater than or equal to 1 TRX');
    expect(refusal(r.freeze(A, 11n * TRX, 10n * TRX))).toBe('frozenBalance must be less than or equal to accountBalance');
  });

  it('regenerates usage linearly over the window', () => {
    const { r, clock } = model();
    ok(r.freeze(A, 100_000n * TRX, 100_000n * TRX));
    r.consumeEnergy(A, 65_000n);
    expect(r.energyUsed(A)).toBe(65_000n);
    clock.now += 12 * HOUR;
    expect(r.energyUsed(A)).toBe(32_500n);
    clock.now += 12 * HOUR;
    expect(r.energyUsed(A)).toBe(0n);
  });

  it('delegates only the stake its usage leaves, and moves the receiver’s usage back on undelegation', () => {
    const { r } = model();
    ok(r.freeze(A, 20_000n * TRX, 20_000n * TRX));
    const limit = r.energyLimit(A);
    ok(r.delegate(A, B, 10_000n * TRX, someone));
    expect(r.energyLimit(B)).toBe(r.energyOfStake(10_000n * TRX));
    expect(r.energyLimit(A) + r.energyLimit(B)).toBeGreaterThanOrEqual(limit - 1n);
    expect(refusal(r.delegate(A, B, 10_001n * TRX, someone))).toBe('delegateBalance must be less than or equal to available FreezeEnergyV2 balance');
    r.consumeEnergy(B, 60_000n);
    ok(r.undelegate(A, B, 5_000n * TRX));
    // Half of B's stake went back: half of its usage went with it.
    expect(r.energyUsed(B)).toBe(30_000n);
    expect(r.energyUsed(A)).toBe(30_000n);
    expect(refusal(r.undelegate(A, B, 6_000n * TRX))).toBe(`insufficient delegateFrozenBalance(Energy), request=${6_000n * TRX}, unlock_balance=${5_000n * TRX}`);
    expect(refusal(r.undelegate(B, A, TRX))).toBe('delegated Resource does not exist');
  });

  it('counts usage against the delegable stake, less what delegated-in stake covers', () => {
    const { r } = model();
    ok(r.freeze(A, 10_000n * TRX, 10_000n * TRX));
    r.consumeEnergy(A, 50_000n); // about 5,000 TRX of stake at 10 energy a TRX
    expect(r.canDelegate(A)).toBeLessThan(5_001n * TRX);
    expect(r.canDelegate(A)).toBeGreaterThan(4_999n * TRX);
  });

  it('refuses delegating to itself, to an account never activated and to a contract', () => {
    const { r } = model();
    ok(r.freeze(A, 10n * TRX, 10n * TRX));
    expect(refusal(r.delegate(A, A, TRX, someone))).toBe('receiverAddress must not be the same as ownerAddress');
    expect(refusal(r.delegate(A, B, TRX, { exists: false, isContract: false }))).toBe(`Account[${B}] not exists`);
    expect(refusal(r.delegate(A, B, TRX, { exists: true, isContract: true }))).toBe('Do not allow delegate resources to contract addresses');
    expect(refusal(r.delegate(A, B, TRX - 1n, someone))).toBe('delegateBalance must be greater than or equal to 1 TRX');
  });

  it('unfreezes after the delay, pays back due unfreezings, and limits pending ones to 32', () => {
    const { r, clock } = model();
    expect(refusal(r.unfreeze(A, TRX))).toBe('no frozenBalance(Energy)');
    ok(r.freeze(A, 100n * TRX, 100n * TRX));
    expect(refusal(r.unfreeze(A, 101n * TRX))).toBe(`Invalid unfreeze_balance, [${101n * TRX}] is error`);
    ok(r.unfreeze(A, 10n * TRX));
    expect(refusal(r.withdrawExpired(A))).toBe('no unFreeze balance to withdraw ');
    clock.now += 14 * 24 * HOUR;
    expect(r.withdrawable(A)).toBe(10n * TRX);
    const again = ok(r.unfreeze(A, TRX));
    expect(again.fromVault).toBe(10n * TRX);
    for (let i = 1; i < UNFREEZE_MAX_TIMES; i++) ok(r.unfreeze(A, TRX));
    expect(r.unfreezingCount(A)).toBe(UNFREEZE_MAX_TIMES);
    expect(refusal(r.unfreeze(A, TRX))).toBe('Invalid unfreeze operation, unfreezing times is over limit');
    clock.now += 14 * 24 * HOUR;
    expect(ok(r.withdrawExpired(A)).fromVault).toBe(BigInt(UNFREEZE_MAX_TIMES) * TRX);
  });

  it('gives 600 bytes of free bandwidth a window, used only when it covers a whole transaction', () => {
    const { r, clock } = model();
    expect(r.freeNetCovers(A, 345n)).toBe(true);
    r.consumeFreeNet(A, 345n);
    expect(r.freeNetCovers(A, 345n)).toBe(false);
    clock.now += 24 * HOUR;
    expect(r.freeNetCovers(A, 345n)).toBe(true);
  });

  it('spends staked energy first, burns the rest, and caps both by the fee_limit', () => {
    expect(chargeCall({ energy: 65_000n, staked: 100_000n, spendable: 0n, feeLimit: 100n * TRX, price: 210n })).toEqual({ used: 65_000n, fromStake: 65_000n, energyFee: 0n, enough: true });
    expect(chargeCall({ energy: 65_000n, staked: 40_000n, spendable: 100n * TRX, feeLimit: 100n * TRX, price: 210n })).toEqual({ used: 65_000n, fromStake: 40_000n, energyFee: 25_000n * 210n, enough: true });
    // fee_limit 1,000 sun buys 4 energy: staked and burnt together stop there.
    expect(chargeCall({ energy: 65_000n, staked: 3n, spendable: 100n * TRX, feeLimit: 1_000n, price: 210n })).toEqual({ used: 4n, fromStake: 3n, energyFee: 210n, enough: false });
  });

  it('keeps its state in a file across restarts', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tron-resources-')), 'resources.json');
    const first = model(file);
    ok(first.r.freeze(A, 50n * TRX, 50n * TRX));
    ok(first.r.delegate(A, B, 20n * TRX, someone));
    ok(first.r.unfreeze(A, 5n * TRX));
    const second = new TronResources(first.r.rules, file);
    expect(second.get(A)).toEqual(first.r.get(A));
    expect(second.get(B).acquired).toBe(20n * TRX);
  });
});
