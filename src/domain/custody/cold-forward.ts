// How much of the hot treasury goes to cold storage, and how much a person
// should bring back from it (issue 31, ADR 0032). Pure: amounts in API base
// units of the asset.

export interface HotTreasury {
  /** What the treasury holds on chain, less what its transfers on their way will still move. */
  held: bigint;
  /** The net of the withdrawals not sent yet: it stays hot, whatever the ceiling. */
  reserved: bigint;
}

/**
 * Above the ceiling, what is free (held beyond the reserved) goes down to the
 * target float; at or below it, nothing moves. Only customers' money goes to
 * cold storage: what the treasury holds beyond what the books hold hot
 * (`bookedHot`: the service's own funds, such as the gas a native treasury
 * keeps, or money sent there from outside) is never forwarded.
 */
export function surplusToForward(hot: HotTreasury & { bookedHot: bigint }, policy: { ceiling: bigint; targetFloat: bigint }): bigint {
  const held = hot.held < hot.bookedHot ? hot.held : hot.bookedHot;
  const free = held - hot.reserved;
  return free > policy.ceiling ? free - policy.targetFloat : 0n;
}

/**
 * Below the floor (what is free after the unsent withdrawals, which may be
 * less than nothing when one waits for funds), what brings the treasury back
 * to the target float once they are paid; 0 otherwise. A refill is asked of a
 * person with the cold key, never taken.
 */
export function refillToAsk(hot: HotTreasury, policy: { targetFloat: bigint; floor: bigint }): bigint {
  const free = hot.held - hot.reserved;
  return free < policy.floor ? policy.targetFloat - free : 0n;
}
