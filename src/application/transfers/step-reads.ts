// What one step of the transfer pipeline (process-transfers.ts) reads of the
// chain once for all the transfers it moves.
import type { BlockRef } from '../../domain/chains/chain-port.js';
import type { EvmFees } from '../../domain/transfers/outgoing-transfer.js';
import type { ChainSender } from '../../domain/transfers/ports.js';

/**
 * What a step reads of the chain once for all its transfers: the fees, the finalized time (TRON), each sender's
 * mined nonce (EVM) and the head. Each is read before any transfer's receipts that use it, which is the order the
 * verdicts need (a nonce seen mined before the receipts were read); an earlier head only counts fewer
 * confirmations. A step of 200 top-ups from one gas tank made 200 nonce reads and 200 head reads.
 */
export interface StepReads {
  fees(): Promise<EvmFees | null>;
  finality(): Promise<number | null>;
  minedNonce(address: string): Promise<bigint | null>;
  head(): Promise<BlockRef>;
}

export function stepReads(sender: ChainSender): StepReads {
  let quote: Promise<EvmFees | null> | undefined;
  let final: Promise<number | null> | undefined;
  let head: Promise<BlockRef> | undefined;
  const nonces = new Map<string, Promise<bigint | null>>();
  const once = <T>(read: () => Promise<T>, forget: () => void): Promise<T> => {
    const p = read();
    p.catch(forget); // a failed read is not kept: the next transfer asks again
    return p;
  };
  return {
    fees: () => (quote ??= once(() => sender.feeQuote(), () => (quote = undefined))),
    finality: () => (final ??= once(() => sender.finalizedTime(), () => (final = undefined))),
    head: () => (head ??= once(() => sender.head(), () => (head = undefined))),
    minedNonce: (address) => {
      let p = nonces.get(address);
      if (!p) {
        p = once(() => sender.minedNonce(address), () => nonces.delete(address));
        nonces.set(address, p);
      }
      return p;
    },
  };
}
