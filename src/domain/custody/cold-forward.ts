// How much of the hot treasury goes to cold storage (issue 31, ADR 0032).
// Pure: amounts in API base units of the asset.

export interface HotTreasury {
  /** What the treasury holds on chain, less what its transfers on their way will still move. */
  held: bigint;
  /** The net of the withdrawals not sent yet: it stays hot, whatever the ceiling. */
  reserved: bigint;
}

/**
 * Above the ceiling, what is free (held beyond the reserved) goes down to the
 * target float; at or below it, nothing moves.
 */
export function surplusToForward(hot: HotTreasury, policy: { ceiling: bigint; targetFloat: bigint }): bigint {
  const free = hot.held - hot.reserved;
  return free > policy.ceiling ? free - policy.targetFloat : 0n;
}
