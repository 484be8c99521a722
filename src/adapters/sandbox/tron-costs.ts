// What each transaction of the TRON stand-in (ADR 0023) used and burnt, as
// its transaction info shows it, and the form it takes in the stand-in's
// journal (one JSON line per transaction, amounts as decimal strings).
// Never on the production path.

/** What a transaction used and burnt (sun), and how it ended, as its transaction info shows it. */
export interface Cost {
  fee: bigint;
  net_fee: bigint;
  /** Bytes paid with (free) bandwidth rather than burnt. */
  net_usage: bigint;
  energy_fee: bigint;
  /** Energy paid with staked energy. */
  energy_usage: bigint;
  energy_usage_total: bigint;
  /** OUT_OF_ENERGY when the call ran out of energy. */
  result?: string;
  /** Unfreezings paid back by an UnfreezeBalanceV2 or WithdrawExpireUnfreeze (sun). */
  withdraw_expire_amount?: bigint;
}

export const toJournal = (c: Cost): Record<string, string> => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, String(v)]));
export const fromJournal = (c: Record<string, string>): Cost => ({
  fee: BigInt(c.fee ?? 0),
  net_fee: BigInt(c.net_fee ?? 0),
  net_usage: BigInt(c.net_usage ?? 0),
  energy_fee: BigInt(c.energy_fee ?? 0),
  energy_usage: BigInt(c.energy_usage ?? 0),
  energy_usage_total: BigInt(c.energy_usage_total ?? 0),
  ...(c.result ? { result: c.result } : {}),
  ...(c.withdraw_expire_amount ? { withdraw_expire_amount: BigInt(c.withdraw_expire_amount) } : {}),
});
export const noCost: Cost = { fee: 0n, net_fee: 0n, net_usage: 0n, energy_fee: 0n, energy_usage: 0n, energy_usage_total: 0n };
