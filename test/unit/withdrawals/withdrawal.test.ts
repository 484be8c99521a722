// The withdrawal lifecycle (docs/api.md#withdrawals) and the owner's mainnet
// security rules (ADR 0018), pure.
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/domain/errors.js';
import type { Beneficiary, WithdrawalPolicy } from '../../../src/domain/security/withdrawal-policy.js';
import {
  approved,
  cancelled,
  confirmedWithdrawal,
  confirming,
  failedWithdrawal,
  held,
  isCancellable,
  pickedUp,
  processing,
  released,
  WithdrawalStateError,
  type Withdrawal,
} from '../../../src/domain/withdrawals/withdrawal.js';
import { atPolicyScale, checkWithdrawalPolicy, policyUnits, type PolicyCheck } from '../../../src/domain/withdrawals/withdrawal-rules.js';

const at = new Date('2026-11-25T12:00:00Z');
const w = (fields: Partial<Withdrawal> = {}): Withdrawal => ({
  id: 'w1',
  workspaceId: 'ws',
  network: 'ETH_MAINNET',
  asset: 'USDT_ETH',
  amount: 100_000_000n,
  fee: 5_000_000n,
  netAmount: 95_000_000n,
  destination: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  status: 'PENDING',
  idempotencyKey: null,
  transferId: null,
  txid: null,
  failure: null,
  requestedAt: at,
  confirmedAt: null,
  updatedAt: at,
  ...fields,
});

describe('the withdrawal lifecycle', () => {
  it('goes PENDING → picked up → PROCESSING → CONFIRMING → CONFIRMED', () => {
    const sent = processing(pickedUp(w(), 't1', at), '0xaa', at);
    expect(sent).toMatchObject({ status: 'PROCESSING', transferId: 't1', txid: '0xaa' });
    const done = confirmedWithdrawal(confirming(sent, '0xbb', at), '0xbb', at);
    expect(done).toMatchObject({ status: 'CONFIRMED', txid: '0xbb', confirmedAt: at });
  });

  it('cancels from PENDING_APPROVAL, PENDING and UNDER_REVIEW, never once picked up or later', () => {
    for (const status of ['PENDING_APPROVAL', 'PENDING', 'UNDER_REVIEW'] as const) expect(cancelled(w({ status }), at).status).toBe('CANCELLED');
    const picked = pickedUp(w(), 't1', at);
    expect(isCancellable(picked)).toBe(false);
    for (const x of [picked, w({ status: 'PROCESSING', transferId: 't' }), w({ status: 'CONFIRMED' }), w({ status: 'CANCELLED' }), w({ status: 'FAILED' })]) {
      let err: unknown;
      try {
        cancelled(x, at);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('WITHDRAWAL_NOT_CANCELLABLE');
    }
  });

  it('approves, holds and releases only from their states; a hold comes before the pick-up', () => {
    expect(approved(w({ status: 'PENDING_APPROVAL' }), at).status).toBe('PENDING');
    expect(() => approved(w(), at)).toThrow(WithdrawalStateError);
    expect(released(held(w(), at), at).status).toBe('PENDING');
    expect(() => held(pickedUp(w(), 't', at), at)).toThrow(WithdrawalStateError);
    expect(() => processing(w(), '0x', at)).toThrow(WithdrawalStateError); // not picked up
  });

  it('fails from PENDING (picked up, never broadcast), PROCESSING or CONFIRMING only', () => {
    expect(failedWithdrawal(w({ transferId: 't' }), 'dropped', at)).toMatchObject({ status: 'FAILED', failure: 'dropped' });
    expect(failedWithdrawal(w({ status: 'CONFIRMING' }), 'reverted', at).status).toBe('FAILED');
    expect(() => failedWithdrawal(w({ status: 'CONFIRMED' }), 'x', at)).toThrow(WithdrawalStateError);
  });
});

const policy = (fields: Partial<WithdrawalPolicy>): WithdrawalPolicy => ({
  workspaceId: 'ws',
  coolingOffHours: null,
  perTxLimit: null,
  dailyLimit: null,
  approvalAbove: null,
  approvalQuorum: 1,
  updatedAt: at,
  ...fields,
});
const entry = (address: string, chain: string | null, hoursAgo: number): Beneficiary => ({
  id: address + chain,
  workspaceId: 'ws',
  chain,
  address,
  addedAt: new Date(at.getTime() - hoursAgo * 3_600_000),
});
const DEST = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const check = (fields: Partial<PolicyCheck>) =>
  checkWithdrawalPolicy({ policy: null, allowed: [], network: 'ETH_MAINNET', asset: 'USDT_ETH', amount: 100_000_000n, destination: DEST, recent: [], now: at, ...fields });

describe('the mainnet withdrawal security rules', () => {
  it('lets anything through when nothing is set', () => {
    expect(check({})).toEqual({ violation: null, needsApproval: false });
  });

  it('requires an allowlisted address or a beneficiary of the network once either exists, after its cooling-off', () => {
    const p = policy({ coolingOffHours: 48 });
    expect(check({ policy: p, allowed: [entry('TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV', null, 100)] }).violation).toBe('DESTINATION_NOT_ALLOWLISTED');
    expect(check({ policy: p, allowed: [entry(DEST, 'BSC_MAINNET', 100)] }).violation).toBe('DESTINATION_NOT_ALLOWLISTED'); // another network's beneficiary
    expect(check({ policy: p, allowed: [entry(DEST, null, 47)] }).violation).toBe('DESTINATION_COOLING_OFF');
    expect(check({ policy: p, allowed: [entry(DEST, null, 48)] }).violation).toBeNull();
    expect(check({ policy: p, allowed: [entry(DEST, 'ETH_MAINNET', 10), entry(DEST, null, 60)] }).violation).toBeNull(); // one usable entry is enough
    expect(check({ policy: p, allowed: [entry(DEST, 'ETH_TESTNET', 100), entry('0x00', 'ETH_TESTNET', 1)] }).violation).toBeNull(); // testnet beneficiaries restrict nothing
  });

  it('compares amounts exactly at 18 places: per transaction, daily (stablecoins together, natives apart) and the approval threshold', () => {
    expect(policyUnits('2500.5')).toBe(2_500_500_000_000_000_000_000n);
    expect(atPolicyScale('USDT_ETH', 1n)).toBe(10n ** 12n);
    expect(check({ policy: policy({ perTxLimit: '100' }) }).violation).toBeNull();
    expect(check({ policy: policy({ perTxLimit: '99.999999' }) }).violation).toBe('PER_TRANSACTION_LIMIT');
    const daily = policy({ dailyLimit: '250' });
    expect(check({ policy: daily, recent: [{ asset: 'USDC_ETH', amount: 150_000_000n }] }).violation).toBeNull(); // exactly 250
    expect(check({ policy: daily, recent: [{ asset: 'USDT_TRON', amount: 150_000_001n }] }).violation).toBe('DAILY_LIMIT');
    expect(check({ policy: daily, recent: [{ asset: 'ETH', amount: 10n ** 24n }] }).violation).toBeNull(); // ETH counts apart
    expect(check({ policy: daily, asset: 'ETH', amount: 10n ** 18n, recent: [{ asset: 'USDT_ETH', amount: 10n ** 12n }] }).violation).toBeNull();
    expect(check({ policy: policy({ approvalAbove: '100' }) }).needsApproval).toBe(false);
    expect(check({ policy: policy({ approvalAbove: '99.5' }) }).needsApproval).toBe(true);
  });
});
