// The deposit lifecycle and the scanner's reorg arithmetic, pure.
import { describe, expect, it } from 'vitest';
import { commonAncestor, relation } from '../../../src/domain/chains/chain-port.js';
import { afterReorg, atHead, confirmationsAt, depositIdentity, shownConfirmations, type DepositProgress } from '../../../src/domain/deposits/deposit.js';

const seen = (over: Partial<DepositProgress> = {}): DepositProgress => ({ status: 'DETECTED', blockNumber: 100n, requiredConfirmations: 2, confirmations: 1, ...over });

describe('deposit lifecycle', () => {
  it('is one deposit per network, txid and log index, whatever the txid case', () => {
    expect(depositIdentity('ETH_TESTNET', '0xABC', 3)).toBe(depositIdentity('ETH_TESTNET', '0xabc', 3));
    expect(depositIdentity('ETH_TESTNET', '0xabc', 3)).not.toBe(depositIdentity('ETH_TESTNET', '0xabc', 4));
    expect(depositIdentity('ETH_TESTNET', '0xabc', null)).not.toBe(depositIdentity('BSC_TESTNET', '0xabc', null));
  });

  it('counts its own block as the first confirmation', () => {
    expect([confirmationsAt(100n, 99n), confirmationsAt(100n, 100n), confirmationsAt(100n, 101n)]).toEqual([0, 1, 2]);
  });

  it('moves DETECTED → CONFIRMING → CONFIRMED, crediting exactly once at the threshold it had when first seen', () => {
    const d = seen({ requiredConfirmations: 3 });
    expect(atHead(d, 100n)).toEqual({ next: { ...d, confirmations: 1, status: 'DETECTED' }, credit: false });
    const confirming = atHead(d, 101n);
    expect(confirming).toEqual({ next: { ...d, confirmations: 2, status: 'CONFIRMING' }, credit: false });
    const confirmed = atHead(confirming.next, 102n);
    expect(confirmed).toEqual({ next: { ...d, confirmations: 3, status: 'CONFIRMED' }, credit: true });
    expect(atHead(confirmed.next, 110n)).toEqual({ next: confirmed.next, credit: false });
  });

  it('never lowers confirmations when a lagging node reports an older head', () => {
    const d = seen({ status: 'CONFIRMING', confirmations: 2, requiredConfirmations: 5 });
    expect(atHead(d, 99n).next.confirmations).toBe(2);
  });

  it('shows an open deposit counted up to the tip read, below its threshold, and a settled one as stored', () => {
    const open: DepositProgress = { status: 'CONFIRMING', blockNumber: 100n, requiredConfirmations: 19, confirmations: 2 };
    expect(shownConfirmations(open, 104n)).toBe(5);
    expect(shownConfirmations(open, 200n)).toBe(18); // reaching 19 is the scanner's credit, not a reader's
    expect(shownConfirmations(open, 100n)).toBe(2); // never lower than stored
    expect(shownConfirmations(open, null)).toBe(2); // no scanner yet
    expect(shownConfirmations({ ...open, status: 'CONFIRMED', confirmations: 19 }, 500n)).toBe(19);
    expect(shownConfirmations({ ...open, status: 'FAILED' }, 500n)).toBe(2);
  });

  it('leaves FLAGGED to the operator', () => {
    const d = seen({ status: 'FLAGGED' });
    expect(atHead(d, 200n)).toEqual({ next: d, credit: false });
  });

  it('fails a reorged-out transfer that is gone, and keeps one re-included elsewhere', () => {
    expect(afterReorg(seen(), null).status).toBe('FAILED');
    expect(afterReorg(seen({ status: 'CONFIRMING' }), 103n)).toMatchObject({ status: 'DETECTED', blockNumber: 103n, confirmations: 0 });
    expect(afterReorg(seen({ status: 'CONFIRMED' }), null).status).toBe('CONFIRMED');
  });
});

describe('reorg detection', () => {
  const stored = new Map<bigint, string>([
    [98n, '0x98'],
    [99n, '0x99'],
    [100n, '0xa0'],
  ]);

  it('tells a block that extends the stored chain from one whose parent differs', () => {
    expect(relation(stored, { number: 101n, hash: '0xa1', parentHash: '0xa0' })).toBe('extends');
    expect(relation(stored, { number: 101n, hash: '0xb1', parentHash: '0xb0' })).toBe('reorg');
    expect(relation(stored, { number: 150n, hash: '0xz', parentHash: '0xy' })).toBe('unknown');
  });

  it('walks back to the highest block the node still has', () => {
    expect(commonAncestor(stored, new Map([[98n, '0x98'], [99n, '0x99'], [100n, '0xb0']]))).toBe(99n);
    expect(commonAncestor(stored, new Map([[98n, '0xc8'], [99n, '0xc9'], [100n, '0xb0']]))).toBeNull();
  });
});
