// The outgoing transfer's lifecycle (ADR 0025): signed before broadcast,
// replaced only at its own nonce with higher fees, included by any of its
// attempts, back to broadcast after a reorg, failed only before it is final.
import { describe, expect, it } from 'vitest';
import {
  allAttemptsExpired,
  broadcast,
  confirmed,
  failed,
  highestFees,
  includedIn,
  isReplacementBump,
  latestLive,
  replacementRefused,
  replacementCeiling,
  replacementOffer,
  underFeeCap,
  withinCeiling,
  needsReplacement,
  nonceTakenByAnother,
  replaced,
  replacementFees,
  requestTransfer,
  resigned,
  signed,
  TransferStateError,
  unincluded,
  type OutgoingTransfer,
  type TransferAttempt,
} from '../../../src/domain/transfers/outgoing-transfer.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 25, 12, 0, s));
const gwei = 10n ** 9n;
const evmAttempt = (txid: string, maxFee: bigint, tip: bigint, s = 0): TransferAttempt => ({
  txid,
  raw: `0x02${txid.slice(2)}`,
  fees: { maxFeePerGas: maxFee, maxPriorityFeePerGas: tip },
  expiresAt: null,
  signedAt: at(s),
});

const request = (network: OutgoingTransfer['network'] = 'ETH_TESTNET'): OutgoingTransfer =>
  requestTransfer({ id: 't1', kind: 'SWEEP', network, asset: 'USDT_ETH', from: '0xfrom', fromPath: { coinType: 60, account: 1, change: 0, index: 0 }, to: '0xtreasury', amount: 60_000_000n, requestedAt: at(0) });

describe('outgoing transfer', () => {
  it('is signed with its nonce before it is broadcast, and broadcast again with the same bytes', () => {
    const t = signed(request(), evmAttempt('0xaa', 30n * gwei, 1n * gwei), 7n);
    expect(t).toMatchObject({ status: 'SIGNED', nonce: 7n, attempts: [{ txid: '0xaa' }] });
    const b = broadcast(t, at(1));
    expect(broadcast(b, at(5))).toMatchObject({ status: 'BROADCAST', broadcastAt: at(1), attempts: [{ txid: '0xaa' }] });
    expect(() => signed(b, evmAttempt('0xbb', 1n, 1n), 8n)).toThrow(TransferStateError);
    expect(() => broadcast(request(), at(1))).toThrow(TransferStateError);
  });

  it('bumps a replacement from the highest fees of any attempt, a refused one included, field by field', () => {
    const b = broadcast(signed(request(), evmAttempt('0xaa', 30n * gwei, 2n * gwei, 0), 7n), at(1));
    expect(highestFees(b)).toEqual({ maxFeePerGas: 30n * gwei, maxPriorityFeePerGas: 2n * gwei });
    const r = replacementRefused(replaced(b, evmAttempt('0xbb', 40n * gwei, 3n * gwei, 60)), '0xbb', at(61));
    expect(latestLive(r)!.txid).toBe('0xaa');
    expect(highestFees(r)).toEqual({ maxFeePerGas: 40n * gwei, maxPriorityFeePerGas: 3n * gwei });
    expect(highestFees({ attempts: [evmAttempt('0x01', 50n * gwei, 1n * gwei), evmAttempt('0x02', 40n * gwei, 4n * gwei)] })).toEqual({ maxFeePerGas: 50n * gwei, maxPriorityFeePerGas: 4n * gwei });
    expect(highestFees({ attempts: [] })).toBeNull();
  });

  it('replaces a transfer no node took (still SIGNED) like a broadcast one; a refused replacement leaves it SIGNED', () => {
    const s = signed(request(), evmAttempt('0xaa', 30n * gwei, 1n * gwei, 0), 7n);
    expect(needsReplacement(s, at(59), 60_000)).toBe(false);
    expect(needsReplacement(s, new Date(at(0).getTime() + 60_000), 60_000)).toBe(true);
    const r = replaced(s, evmAttempt('0xbb', 40n * gwei, 2n * gwei, 60));
    expect(r).toMatchObject({ status: 'SIGNED', nonce: 7n, broadcastAt: null });
    expect(r.attempts.map((a) => a.txid)).toEqual(['0xaa', '0xbb']);
    // Refused too: no node ever took any of it, so it is not BROADCAST; a broadcast one goes back to BROADCAST.
    expect(replacementRefused(r, '0xbb', at(61))).toMatchObject({ status: 'SIGNED', broadcastAt: null });
    const b = broadcast(s, at(1));
    expect(replacementRefused(replaced(b, evmAttempt('0xbb', 40n * gwei, 2n * gwei, 60)), '0xbb', at(61))).toMatchObject({ status: 'BROADCAST', broadcastAt: at(1) });
    expect(() => replaced(request(), evmAttempt('0xbb', 40n * gwei, 2n * gwei, 60))).toThrow(TransferStateError);
  });

  it('never lets refused replacements push the fees past twice what the network asks (or what the live attempt needs)', () => {
    const quote = { maxFeePerGas: 4n * gwei, maxPriorityFeePerGas: 1n * gwei };
    let t = broadcast(signed(request(), evmAttempt('0x00', 2n * gwei, 1n * gwei / 2n, 0), 7n), at(1));
    // A node refusing every replacement (the sender short of funds), the quote unchanged: the fees climb to the
    // ceiling and stay there (the next would be the bytes of a refused attempt: none is signed, the live one goes out).
    for (let i = 1; i <= 12; i++) {
      const fees = replacementOffer(t, quote)!;
      expect(fees.maxFeePerGas).toBeLessThanOrEqual(8n * gwei);
      expect(fees.maxPriorityFeePerGas).toBeLessThanOrEqual(2n * gwei);
      if (t.attempts.some((a) => a.fees!.maxFeePerGas === fees.maxFeePerGas && a.fees!.maxPriorityFeePerGas === fees.maxPriorityFeePerGas)) break;
      const txid = `0x${i.toString(16).padStart(2, '0')}`;
      t = replacementRefused(replaced(t, evmAttempt(txid, fees.maxFeePerGas, fees.maxPriorityFeePerGas, i * 60)), txid, at(i * 60 + 1));
    }
    expect(highestFees(t)).toEqual({ maxFeePerGas: 8n * gwei, maxPriorityFeePerGas: 2n * gwei });
    // A live attempt above twice the quote (the network's price fell): its own +15 % is still allowed.
    expect(replacementCeiling({ maxFeePerGas: 20n * gwei, maxPriorityFeePerGas: 5n * gwei }, quote)).toEqual({ maxFeePerGas: 23n * gwei, maxPriorityFeePerGas: 5_750_000_000n });
    expect(withinCeiling({ maxFeePerGas: 9n * gwei, maxPriorityFeePerGas: 9n * gwei }, { maxFeePerGas: 8n * gwei, maxPriorityFeePerGas: 9n * gwei })).toEqual({ maxFeePerGas: 8n * gwei, maxPriorityFeePerGas: 8n * gwei });
    // The transfer's fee cap is the same ceiling on both fields.
    expect(underFeeCap({ maxFeePerGas: 9n * gwei, maxPriorityFeePerGas: 3n * gwei }, 8n * gwei)).toEqual({ maxFeePerGas: 8n * gwei, maxPriorityFeePerGas: 3n * gwei });
    expect(underFeeCap({ maxFeePerGas: 9n * gwei, maxPriorityFeePerGas: 9n * gwei }, 8n * gwei)).toEqual({ maxFeePerGas: 8n * gwei, maxPriorityFeePerGas: 8n * gwei });
    expect(underFeeCap({ maxFeePerGas: 5n * gwei, maxPriorityFeePerGas: 1n * gwei }, null)).toEqual({ maxFeePerGas: 5n * gwei, maxPriorityFeePerGas: 1n * gwei });
    expect(replacementOffer({ attempts: [], feeCap: null }, quote)).toBeNull();
  });

  it('is replaced at the same nonce with fees at least 15 % higher, keeping the earlier attempts', () => {
    const b = broadcast(signed(request(), evmAttempt('0xaa', 30n * gwei, 1n * gwei, 0), 7n), at(1));
    expect(needsReplacement(b, at(59), 60_000)).toBe(false);
    expect(needsReplacement(b, new Date(at(0).getTime() + 60_000), 60_000)).toBe(true);
    const fees = replacementFees(b.attempts[0]!.fees!, { maxFeePerGas: 20n * gwei, maxPriorityFeePerGas: 1n * gwei });
    expect(fees).toEqual({ maxFeePerGas: 34_500_000_000n, maxPriorityFeePerGas: 1_150_000_000n });
    // The network now asks more than the bump: its price wins.
    expect(replacementFees(b.attempts[0]!.fees!, { maxFeePerGas: 80n * gwei, maxPriorityFeePerGas: 3n * gwei })).toEqual({ maxFeePerGas: 80n * gwei, maxPriorityFeePerGas: 3n * gwei });
    const r = replaced(b, { ...evmAttempt('0xbb', fees.maxFeePerGas, fees.maxPriorityFeePerGas, 60) });
    expect(r).toMatchObject({ status: 'SIGNED', nonce: 7n });
    expect(r.attempts.map((a) => a.txid)).toEqual(['0xaa', '0xbb']);
    expect(() => replaced(b, evmAttempt('0xcc', 30n * gwei, 1n * gwei))).toThrow(/at least 10 % more on both/);
  });

  it('takes a replacement only at +10 % on both fee fields, as nodes do (a capped +5 % on one is refused)', () => {
    const before = { maxFeePerGas: 100n, maxPriorityFeePerGas: 10n };
    expect(isReplacementBump(before, { maxFeePerGas: 110n, maxPriorityFeePerGas: 11n })).toBe(true);
    expect(isReplacementBump(before, { maxFeePerGas: 105n, maxPriorityFeePerGas: 20n })).toBe(false);
    expect(isReplacementBump(before, { maxFeePerGas: 200n, maxPriorityFeePerGas: 10n })).toBe(false);
    // One wei of tip cannot grow by 10 %: only by a whole wei more.
    expect(isReplacementBump({ maxFeePerGas: 100n, maxPriorityFeePerGas: 1n }, { maxFeePerGas: 110n, maxPriorityFeePerGas: 2n })).toBe(true);
    const b = broadcast(signed(request(), evmAttempt('0xaa', 100n, 10n, 0), 7n), at(1));
    expect(() => replaced(b, evmAttempt('0xcc', 105n, 20n))).toThrow(/at least 10 % more on both/);
  });

  it('is included by whichever attempt was mined, confirmed at its confirmations, and rebroadcast after a reorg', () => {
    let t = broadcast(signed(request(), evmAttempt('0xaa', 30n * gwei, 1n * gwei), 7n), at(1));
    t = broadcast(replaced(t, evmAttempt('0xbb', 40n * gwei, 2n * gwei, 60)), at(61));
    const mined = includedIn(t, '0xaa', 100n); // the first attempt, after all
    expect(mined).toMatchObject({ status: 'CONFIRMING', included: { txid: '0xaa', blockNumber: 100n } });
    expect(confirmed(mined, 101n, 3, at(70)).status).toBe('CONFIRMING');
    expect(confirmed(mined, 102n, 3, at(70))).toMatchObject({ status: 'CONFIRMED', confirmedAt: at(70) });
    expect(unincluded(mined)).toMatchObject({ status: 'BROADCAST', included: null });
    expect(() => includedIn(t, '0xdd', 100n)).toThrow(/not one of its attempts/);
  });

  it('keeps the gas a mined attempt paid, and fails a reverted one only once its block has the confirmations', () => {
    const b = broadcast(signed(request(), evmAttempt('0xaa', 30n * gwei, 1n * gwei), 7n), at(1));
    const reverted = includedIn(b, '0xaa', 100n, 42_000n * gwei, true);
    expect(reverted).toMatchObject({ status: 'CONFIRMING', feePaid: 42_000n * gwei, included: { reverted: true } });
    expect(confirmed(reverted, 101n, 3, at(9)).status).toBe('CONFIRMING'); // a reorg may still bring it back
    expect(confirmed(reverted, 102n, 3, at(9))).toMatchObject({ status: 'FAILED', failure: 'reverted', feePaid: 42_000n * gwei });
    expect(unincluded(reverted)).toMatchObject({ status: 'BROADCAST', feePaid: null });
  });

  it('fails when reverted or when another transaction took its nonce, never once confirmed', () => {
    const b = broadcast(signed(request(), evmAttempt('0xaa', 30n * gwei, 1n * gwei), 7n), at(1));
    expect(nonceTakenByAnother(b, 7n, false)).toBe(false); // nonce 7 not used yet
    expect(nonceTakenByAnother(b, 8n, true)).toBe(false); // ours was mined
    expect(nonceTakenByAnother(b, 8n, false)).toBe(true);
    expect(failed(b, 'nonce taken')).toMatchObject({ status: 'FAILED', failure: 'nonce taken' });
    const done = confirmed(includedIn(b, '0xaa', 1n), 10n, 1, at(9));
    expect(() => failed(done, 'late')).toThrow(TransferStateError);
  });

  it('on TRON signs a new attempt only once every earlier one has expired', () => {
    const tron = (txid: string, expiresAt: number): TransferAttempt => ({ txid, raw: '{}', fees: null, expiresAt, signedAt: at(0) });
    const b = broadcast(signed(request('TRON_TESTNET'), tron('aa', 1_000), null), at(1));
    expect(needsReplacement(b, at(59), 1)).toBe(false); // no fee replacement on TRON
    expect(allAttemptsExpired(b, 1_000)).toBe(false);
    expect(() => resigned(b, tron('bb', 5_000), 1_000)).toThrow(TransferStateError);
    expect(resigned(b, tron('bb', 5_000), 1_001).attempts.map((a) => a.txid)).toEqual(['aa', 'bb']);
  });

  it('moves a positive amount', () => {
    expect(() => requestTransfer({ ...request(), amount: 0n })).toThrow(/positive/);
  });

  it('marks a replacement refused at its first broadcast: back to BROADCAST with the attempt before it live, the refused one kept', () => {
    const b = broadcast(signed(request(), evmAttempt('0xaa', 100n, 10n, 0), 7n), at(1));
    const r = replaced(b, evmAttempt('0xbb', 120n, 12n, 60));
    const back = replacementRefused(r, '0xbb', at(61));
    expect(back.status).toBe('BROADCAST');
    expect(latestLive(back)?.txid).toBe('0xaa');
    expect(back.attempts.map((a) => a.txid)).toEqual(['0xaa', '0xbb']);
    // The next replacement waits its time from the refusal, and must beat the live attempt, not the refused one.
    expect(needsReplacement(back, new Date(at(61).getTime() + 59_000), 60_000)).toBe(false);
    expect(needsReplacement(back, new Date(at(61).getTime() + 60_000), 60_000)).toBe(true);
    expect(replaced(back, evmAttempt('0xcc', 110n, 11n, 122)).attempts.map((a) => a.txid)).toEqual(['0xaa', '0xbb', '0xcc']);
    // Only a replacement, only at its first broadcast, only once.
    expect(() => replacementRefused(b, '0xaa', at(2))).toThrow(TransferStateError);
    expect(() => replacementRefused(back, '0xbb', at(62))).toThrow(TransferStateError);
  });
});
