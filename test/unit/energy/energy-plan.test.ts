import { describe, expect, it } from 'vitest';
import { cancelled, delegated, DelegationStateError, reclaimed, reclaimFailed, reclaiming, stakeOut, usedBy, type EnergyDelegation } from '../../../src/domain/energy/delegation.js';
import { decideEnergy, defaultEnergyPolicy, energyPolicy, waitedTooLong } from '../../../src/domain/energy/energy-plan.js';
import { energyOfStake } from '../../../src/domain/energy/resources.js';

const network = { totalEnergyLimit: 180_000_000_000n, totalEnergyWeight: 18_000_000_000n };
const TRX = 1_000_000n;
const at = new Date('2026-11-28T00:00:00Z');

describe('the energy of one TRON transfer', () => {
  it('burns when the network burns (the default), whatever the stake', () => {
    expect(defaultEnergyPolicy('TRON_TESTNET')).toMatchObject({ source: 'burn', marginPercent: 10, maxWaitSeconds: 120 });
    expect(decideEnergy({ policy: defaultEnergyPolicy('TRON_TESTNET'), estimate: 65_000n, lendable: 10n ** 12n, network })).toEqual({ kind: 'burn', reason: 'source_is_burn' });
  });

  it('lends the estimate with its margin when the stake can, and burns when it cannot', () => {
    const policy = { source: 'stake' as const, marginPercent: 10 };
    const lend = decideEnergy({ policy, estimate: 130_000n, lendable: 100_000n * TRX, network });
    expect(lend).toEqual({ kind: 'lend', energy: 143_000n, stake: 14_301n * TRX });
    if (lend.kind === 'lend') expect(energyOfStake(lend.stake, network)).toBeGreaterThanOrEqual(lend.energy);
    // Exactly enough lends; one sun short burns.
    expect(decideEnergy({ policy, estimate: 130_000n, lendable: 14_301n * TRX, network }).kind).toBe('lend');
    expect(decideEnergy({ policy, estimate: 130_000n, lendable: 14_301n * TRX - 1n, network })).toEqual({ kind: 'burn', reason: 'not_enough_stake' });
    expect(() => decideEnergy({ policy, estimate: 0n, lendable: TRX, network })).toThrow();
  });

  it('gives up waiting for lent energy after the operator’s longest wait', () => {
    expect(waitedTooLong({ maxWaitSeconds: 60 }, at, new Date(at.getTime() + 60_000))).toBe(false);
    expect(waitedTooLong({ maxWaitSeconds: 60 }, at, new Date(at.getTime() + 60_001))).toBe(true);
    expect(waitedTooLong({ maxWaitSeconds: 0 }, at, new Date(at.getTime() + 1))).toBe(true);
  });

  it('takes only a margin and a wait within bounds', () => {
    expect(energyPolicy('TRON_TESTNET', 'stake', 25, 300, at)).toEqual({ network: 'TRON_TESTNET', source: 'stake', marginPercent: 25, maxWaitSeconds: 300, updatedAt: at });
    expect(() => energyPolicy('TRON_TESTNET', 'stake', 101, 300, at)).toThrow(RangeError);
    expect(() => energyPolicy('TRON_TESTNET', 'stake', -1, 300, at)).toThrow(RangeError);
    expect(() => energyPolicy('TRON_TESTNET', 'stake', 10, 3601, at)).toThrow(RangeError);
    expect(() => energyPolicy('TRON_TESTNET', 'stake', 10, 1.5, at)).toThrow(RangeError);
  });
});

describe('a loan of energy', () => {
  const loan: EnergyDelegation = {
    id: 'd1',
    network: 'TRON_TESTNET',
    from: 'TEnergy',
    receiver: 'TDeposit',
    stake: 7_151n * TRX,
    energy: 71_500n,
    purpose: 'SWEEP',
    purposeId: 's1',
    status: 'DELEGATING',
    delegateTransferId: 't1',
    reclaimTransferId: null,
    reclaimFailures: 0,
    burnEquivalent: 13_650_000n,
    usedBy: null,
    createdAt: at,
    updatedAt: at,
  };

  it('goes delegated, taken back (again after a failure), reclaimed; its stake is out until then', () => {
    const d = delegated(loan, at);
    expect(stakeOut(d)).toBe(true);
    const r = reclaiming(d, 't2', at);
    expect(r).toMatchObject({ status: 'RECLAIMING', reclaimTransferId: 't2' });
    const again = reclaiming(reclaimFailed(r, at), 't3', at);
    expect(again).toMatchObject({ status: 'RECLAIMING', reclaimTransferId: 't3', reclaimFailures: 1 });
    const done = reclaimed(again, at);
    expect(done.status).toBe('RECLAIMED');
    expect(stakeOut(done)).toBe(false);
  });

  it('is cancelled when its delegation never reached the chain, and refuses steps out of order', () => {
    expect(cancelled(loan, at).status).toBe('CANCELLED');
    expect(stakeOut(cancelled(loan, at))).toBe(false);
    expect(() => reclaiming(loan, 't2', at)).toThrow(DelegationStateError);
    expect(() => reclaimed(delegated(loan, at), at)).toThrow(DelegationStateError);
    expect(() => delegated(delegated(loan, at), at)).toThrow(DelegationStateError);
    expect(() => cancelled(delegated(loan, at), at)).toThrow(/is DELEGATED: cannot be cancelled/);
  });

  it('records the transfer that went on it, only once its energy is with the receiver', () => {
    const later = new Date(at.getTime() + 5_000);
    expect(usedBy(delegated(loan, at), 't9', later)).toMatchObject({ status: 'DELEGATED', usedBy: 't9', updatedAt: later });
    expect(() => usedBy(loan, 't9', at)).toThrow(/is DELEGATING: cannot be used/);
    expect(() => usedBy(reclaiming(delegated(loan, at), 't2', at), 't9', at)).toThrow(DelegationStateError);
  });
});
