// The verdicts of the sending pipeline that move money: "none of this
// transfer's attempts can ever be mined" (it is failed, a withdrawal refunded)
// and "it reverted" (the same). Neither rests on one read of one backend
// (issue 30, ADR 0031): each needs every URL's answer and must hold again on a
// step some blocks later. Kept in memory: a restart only delays a verdict,
// never hastens one.
import type { OutgoingTransfer } from '../../domain/transfers/outgoing-transfer.js';
import type { ChainSender, SentReceipt } from '../../domain/transfers/ports.js';

export class ChainVerdicts {
  /**
   * Transfers found dead once (every URL without a receipt, EVM: the nonce
   * taken at the confirmation depth), with the head then: the verdict counts
   * only when it holds again some blocks later. Kept in memory: a restart
   * only delays a verdict, never hastens one.
   */
  private readonly suspects = new Map<string, bigint>();
  /** Transfers whose revert every URL showed once, with the head then (revertProved). */
  private readonly reverts = new Map<string, bigint>();

  /** Forgets what was seen of the transfer's death (a receipt was found, or the proof broke). */
  clear(id: string): void {
    this.suspects.delete(id);
  }

  /** Forgets what was seen of the transfer's revert. */
  clearRevert(id: string): void {
    this.reverts.delete(id);
  }

  /**
   * Whether none of the transfer's attempts can ever be mined, proved rather
   * than read once (issue 30): EVM, the sender's nonce is taken in a block
   * with the network's confirmations; every attempt's receipt is asked of
   * every URL; the transaction that used the nonce is found, and is none of
   * ours; and the same holds on a step at least `required` (and 3) blocks
   * later. 'mined' when some URL has a receipt after all.
   */
  async proveDead(
    t: OutgoingTransfer,
    sender: ChainSender,
    required: number,
  ): Promise<{ kind: 'mined'; receipt: SentReceipt } | { kind: 'dead' } | { kind: 'unproved' }> {
    const head = (await sender.head()).number;
    if (t.nonce !== null) {
      const settled = await sender.settledNonce(t.from, head, required);
      if (settled === null || settled <= t.nonce) {
        this.suspects.delete(t.id);
        return { kind: 'unproved' };
      }
    }
    for (const a of t.attempts) {
      const receipt = await sender.sentReceiptOnEveryNode(a.txid);
      if (receipt) return { kind: 'mined', receipt };
    }
    if (t.nonce !== null) {
      // No receipt anywhere is no proof (receipts can lag): the transaction that used the nonce must be found,
      // and be none of ours. Ours, or not found: the transfer waits (a paid withdrawal is never refunded).
      const holder = sender.nonceHolder ? await sender.nonceHolder(t.from, t.nonce, head) : null;
      if (holder === null || t.attempts.some((a) => a.txid.toLowerCase() === holder)) {
        this.suspects.delete(t.id);
        return { kind: 'unproved' };
      }
    }
    const seen = this.suspects.get(t.id);
    if (seen === undefined || head < seen) {
      this.suspects.set(t.id, head);
      return { kind: 'unproved' };
    }
    if (head - seen < BigInt(Math.max(required, 3))) return { kind: 'unproved' };
    this.suspects.delete(t.id);
    return { kind: 'dead' };
  }

  /**
   * Whether the transfer's revert is proved (issue 30): every URL has the
   * attempt reverted in one same block, and again on a step at least
   * `required` (and 3) blocks later. A receipt from one backend is not enough
   * to refund a withdrawal: the node behind it may be on a fork.
   */
  async revertProved(id: string, txid: string, sender: ChainSender, head: bigint, required: number): Promise<boolean> {
    if (!(await sender.revertedOnEveryNode(txid))) {
      this.reverts.delete(id);
      return false;
    }
    const seen = this.reverts.get(id);
    if (seen === undefined || head < seen) {
      this.reverts.set(id, head);
      return false;
    }
    if (head - seen < BigInt(Math.max(required, 3))) return false;
    this.reverts.delete(id);
    return true;
  }
}
