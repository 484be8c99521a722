// Unexpected arrivals (issue 31, ADR 0032): what is one, and how the operator's recovery moves it, once.
import { describe, expect, it } from 'vitest';
import type { ObservedTransfer } from '../../../src/domain/chains/chain-port.js';
import { creditedAs, returnFailed, returned, toReturn, unexpectedArrival, UnexpectedStateError } from '../../../src/domain/deposits/unexpected-deposit.js';

const at = new Date('2026-11-27T12:00:00Z');
const transfer = (over: Partial<ObservedTransfer> = {}): ObservedTransfer => ({
  network: 'ETH_TESTNET',
  asset: 'USDC_ETH',
  txid: '0xabc',
  logIndex: 3,
  block: { number: 10n, hash: '0xb10', parentHash: '0xb09' },
  from: '0x1111111111111111111111111111111111111111',
  to: '0x2222222222222222222222222222222222222222',
  amount: 30_000_000n,
  ...over,
});
const usdtWallet = { id: 'w1', workspaceId: 'ws1', asset: 'USDT_ETH' as const };
const nobody = () => false;

describe('unexpected arrivals', () => {
  it('is another supported asset than the wallet\'s, from anyone but the service itself, and more than nothing', () => {
    expect(unexpectedArrival(transfer(), usdtWallet, nobody, 'u1', at)).toMatchObject({
      id: 'u1',
      asset: 'USDC_ETH',
      walletAsset: 'USDT_ETH',
      walletId: 'w1',
      workspaceId: 'ws1',
      status: 'LISTED',
      chainAmount: 30_000_000n,
      blockNumber: 10n,
    });
    expect(unexpectedArrival(transfer({ asset: 'USDT_ETH' }), usdtWallet, nobody, 'u1', at)).toBeNull(); // a deposit
    expect(unexpectedArrival(transfer({ asset: 'ETH', logIndex: null }), usdtWallet, (a) => a === transfer().from, 'u1', at)).toBeNull(); // a gas top-up
    expect(unexpectedArrival(transfer({ amount: 0n }), usdtWallet, nobody, 'u1', at)).toBeNull();
  });

  it('is credited once or returned once, never both', () => {
    const listed = unexpectedArrival(transfer(), usdtWallet, nobody, 'u1', at)!;
    const credited = creditedAs(listed, 'd1', at);
    expect(credited).toMatchObject({ status: 'CREDITED', depositId: 'd1', resolvedAt: at });
    expect(() => creditedAs(credited, 'd2', at)).toThrow(UnexpectedStateError);
    expect(() => toReturn(credited)).toThrow(UnexpectedStateError);
    const returning = toReturn(listed);
    expect(returning.status).toBe('RETURNING');
    expect(toReturn(returning)).toBe(returning);
    expect(() => creditedAs(returning, 'd1', at)).toThrow(UnexpectedStateError);
    // A failed return gives it back to the operator, who may credit it or try the return again.
    expect(returnFailed(returning)).toMatchObject({ status: 'LISTED', returnTransferId: null });
    expect(() => returnFailed(listed)).toThrow(UnexpectedStateError);
    const done = returned(returning, 't1', at);
    expect(done).toMatchObject({ status: 'RETURNED', returnTransferId: 't1', resolvedAt: at });
    expect(() => returned(done, 't2', at)).toThrow(UnexpectedStateError);
    expect(() => toReturn(done)).toThrow(UnexpectedStateError);
  });
});
