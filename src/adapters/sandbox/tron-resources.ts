// TRON's Stake 2.0 resource rules for the sandbox's TRON stand-in (ADR 0023),
// as java-tron applies them (FreezeBalanceV2, DelegateResource,
// UnDelegateResource, UnfreezeBalanceV2 and WithdrawExpireUnfreeze actuators;
// ResourceProcessor, EnergyProcessor, BandwidthProcessor), without HTTP or a
// node: the stand-in asks it whether a transaction is valid, runs the backing
// transfers, then commits what the plan says. Only ENERGY can be staked here.
//
// Simplifications, each on purpose: one regeneration window for every account
// (java-tron also resizes an account's window after an undelegation; here the
// moved usage regenerates over the full window); wall-clock milliseconds in
// place of java-tron's block slots; delegations are never locked. Amounts are
// sun in bigint; the state is not tied to blocks, so rolling the backing chain
// back (the tests' fork helper) leaves stakes and usage as they were.
import { renameSync, readFileSync, writeFileSync } from 'node:fs';

/** One TRX in sun: java-tron's TRX_PRECISION. */
const TRX = 1_000_000n;
/** Most unfreezings pending at once: java-tron's UNFREEZE_MAX_TIMES. */
export const UNFREEZE_MAX_TIMES = 32;

export interface ResourceRules {
  /** The network's energy per window (java-tron's totalEnergyCurrentLimit). */
  totalEnergyCurrentLimit: bigint;
  /** Whole TRX staked for energy by the rest of the network, added to what is staked on the stand-in. */
  baselineEnergyWeight: bigint;
  /** Bandwidth each account gets free per window, in bytes (java-tron's getFreeNetLimit). */
  freeNetLimit: bigint;
  /** How long used energy and bandwidth take to come back (24 h on TRON). */
  windowMs: bigint;
  /** How long unstaked TRX waits before it can be withdrawn (14 days on TRON). */
  unfreezeDelayMs: bigint;
}

export const MAINNET_LIKE_RULES: ResourceRules = {
  totalEnergyCurrentLimit: 180_000_000_000n,
  // 180e9 energy over 18e9 TRX: one staked TRX gives 10 energy a window.
  baselineEnergyWeight: 18_000_000_000n,
  freeNetLimit: 600n,
  windowMs: 24n * 3_600_000n,
  unfreezeDelayMs: 14n * 24n * 3_600_000n,
};

export interface Unfreezing {
  amount: bigint;
  expireTime: bigint;
}

/** One account's resources. Addresses are TRON hex (41…), lower case. */
export interface AccountResources {
  /** Own stake for ENERGY not delegated (java-tron's frozenV2 ENERGY amount). */
  frozenEnergy: bigint;
  /** Whether a frozenV2 ENERGY entry exists (java-tron keeps it, at zero, once an account staked). */
  staked: boolean;
  /** Stake delegated out, by receiver, and when each was last delegated (ms). */
  delegatedOut: Map<string, { amount: bigint; at: bigint }>;
  /** Stake delegated in by others. */
  acquired: bigint;
  energyUsage: bigint;
  energyTime: bigint;
  freeNetUsage: bigint;
  freeNetTime: bigint;
  unfreezing: Unfreezing[];
}

/** A valid operation: what the backing node must move, then `commit` to record it. */
export interface Plan {
  /** Sun the vault receives from the owner (a stake). */
  toVault: bigint;
  /** Sun the vault pays back to the owner (withdrawn unfreezings). */
  fromVault: bigint;
  commit(): void;
}
export type Outcome = { error: string } | Plan;

/** What the stand-in knows of an address from the backing node. */
export interface AddressFacts {
  exists: boolean;
  isContract: boolean;
}

const fresh = (): AccountResources => ({
  frozenEnergy: 0n,
  staked: false,
  delegatedOut: new Map(),
  acquired: 0n,
  energyUsage: 0n,
  energyTime: 0n,
  freeNetUsage: 0n,
  freeNetTime: 0n,
  unfreezing: [],
});

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

export class TronResources {
  private readonly accounts = new Map<string, AccountResources>();

  constructor(
    readonly rules: ResourceRules,
    /** Where the state is kept between runs (written whole after each change); none keeps it in memory. */
    private readonly file: string | null = null,
    private readonly clock: () => number = Date.now,
  ) {
    if (file) this.load(file);
  }

  private now(): bigint {
    return BigInt(this.clock());
  }

  /** The account's resources (a fresh, empty record when it never used any). */
  get(address: string): AccountResources {
    return this.accounts.get(address) ?? fresh();
  }

  private edit(address: string): AccountResources {
    let a = this.accounts.get(address);
    if (!a) {
      a = fresh();
      this.accounts.set(address, a);
    }
    return a;
  }

  // ---- the formulas ----------------------------------------------------------

  /** java-tron's ResourceProcessor.increase: the old usage fades linearly over the window, the new one is added. */
  decayed(usage: bigint, since: bigint, now = this.now()): bigint {
    const window = this.rules.windowMs;
    if (usage === 0n || since + window <= now) return 0n;
    const elapsed = now > since ? now - since : 0n;
    return (usage * (window - elapsed) + window / 2n) / window;
  }

  /** Whole TRX staked for energy on the network: the baseline and every stake here, delegated or not. */
  totalEnergyWeight(): bigint {
    let weight = this.rules.baselineEnergyWeight;
    for (const a of this.accounts.values()) weight += (a.frozenEnergy + delegatedTotal(a)) / TRX;
    return weight;
  }

  /** Energy per window from `stake` sun (java-tron's calculateGlobalEnergyLimitV2). */
  energyOfStake(stake: bigint): bigint {
    const weight = this.totalEnergyWeight();
    return weight === 0n ? 0n : (stake * this.rules.totalEnergyCurrentLimit) / (TRX * weight);
  }

  /** The account's energy per window: its own stake not delegated, and what it was delegated. */
  energyLimit(address: string): bigint {
    const a = this.get(address);
    return this.energyOfStake(a.frozenEnergy + a.acquired);
  }

  energyUsed(address: string): bigint {
    const a = this.get(address);
    return this.decayed(a.energyUsage, a.energyTime);
  }

  /** Energy the account can spend now (java-tron's getAccountLeftEnergyFromFreeze). */
  energyAvailable(address: string): bigint {
    return max(this.energyLimit(address) - this.energyUsed(address), 0n);
  }

  freeNetUsed(address: string): bigint {
    const a = this.get(address);
    return this.decayed(a.freeNetUsage, a.freeNetTime);
  }

  /** Whether the free bandwidth left covers all of `bytes` (java-tron uses it only then). */
  freeNetCovers(address: string, bytes: bigint): boolean {
    return bytes <= this.rules.freeNetLimit - this.freeNetUsed(address);
  }

  consumeFreeNet(address: string, bytes: bigint) {
    const a = this.edit(address);
    const now = this.now();
    a.freeNetUsage = this.decayed(a.freeNetUsage, a.freeNetTime, now) + bytes;
    a.freeNetTime = now;
    this.save();
  }

  consumeEnergy(address: string, energy: bigint) {
    if (energy === 0n) return;
    const a = this.edit(address);
    const now = this.now();
    a.energyUsage = this.decayed(a.energyUsage, a.energyTime, now) + energy;
    a.energyTime = now;
    this.save();
  }

  /**
   * Stake the account can delegate (java-tron's calcCanDelegatedEnergyMaxSize): its own stake less
   * the usage its own stake carries, in sun (usage covered by delegated-in stake does not count).
   */
  canDelegate(address: string): bigint {
    const a = this.get(address);
    const weight = this.totalEnergyWeight();
    const usageSun = (this.energyUsed(address) * TRX * weight) / this.rules.totalEnergyCurrentLimit;
    const ownUsage = max(usageSun - a.acquired, 0n);
    return max(a.frozenEnergy - ownUsage, 0n);
  }

  /** Unfreezings whose delay has passed, in sun (java-tron's getCanWithdrawUnfreezeAmount). */
  withdrawable(address: string, at = this.now()): bigint {
    return this.get(address).unfreezing.reduce((sum, u) => (u.expireTime <= at ? sum + u.amount : sum), 0n);
  }

  /** Unfreezings still waiting (java-tron's getUnfreezingV2Count). */
  unfreezingCount(address: string): number {
    const now = this.now();
    return this.get(address).unfreezing.filter((u) => u.expireTime > now).length;
  }

  // ---- the Stake 2.0 contracts (validation as java-tron's, in its order) ----

  /** FreezeBalanceV2Contract for ENERGY; `balance` is what the owner holds once the bandwidth is paid. */
  freeze(owner: string, amount: bigint, balance: bigint): Outcome {
    if (amount <= 0n) return { error: 'frozenBalance must be positive' };
    if (amount < TRX) return { error: 'frozenBalance must be greater than or equal to 1 TRX' };
    if (amount > balance) return { error: 'frozenBalance must be less than or equal to accountBalance' };
    return this.plan(amount, 0n, () => {
      const a = this.edit(owner);
      a.frozenEnergy += amount;
      a.staked = true;
    });
  }

  /** DelegateResourceContract for ENERGY, never locked. */
  delegate(owner: string, receiver: string, amount: bigint, facts: AddressFacts): Outcome {
    if (amount < TRX) return { error: 'delegateBalance must be greater than or equal to 1 TRX' };
    if (this.canDelegate(owner) < amount) return { error: 'delegateBalance must be less than or equal to available FreezeEnergyV2 balance' };
    if (receiver === owner) return { error: 'receiverAddress must not be the same as ownerAddress' };
    if (!facts.exists) return { error: `Account[${receiver}] not exists` };
    if (facts.isContract) return { error: 'Do not allow delegate resources to contract addresses' };
    return this.plan(0n, 0n, () => {
      const a = this.edit(owner);
      const now = this.now();
      const held = a.delegatedOut.get(receiver)?.amount ?? 0n;
      a.delegatedOut.set(receiver, { amount: held + amount, at: now });
      a.frozenEnergy -= amount;
      this.edit(receiver).acquired += amount;
    });
  }

  /** UnDelegateResourceContract for ENERGY: the receiver's usage goes back with the stake, in proportion. */
  undelegate(owner: string, receiver: string, amount: bigint): Outcome {
    if (receiver === owner) return { error: 'receiverAddress must not be the same as ownerAddress' };
    const delegated = this.get(owner).delegatedOut.get(receiver)?.amount;
    if (delegated === undefined) return { error: 'delegated Resource does not exist' };
    if (amount <= 0n) return { error: 'unDelegateBalance must be more than 0 TRX' };
    if (delegated < amount) return { error: `insufficient delegateFrozenBalance(Energy), request=${amount}, unlock_balance=${delegated}` };
    return this.plan(0n, 0n, () => {
      const now = this.now();
      const r = this.edit(receiver);
      r.energyUsage = this.decayed(r.energyUsage, r.energyTime, now);
      let transferUsage = 0n;
      if (r.acquired < amount) {
        r.acquired = 0n;
      } else {
        const maxUsage = this.energyOfStake(amount);
        const all = r.frozenEnergy + r.acquired;
        transferUsage = all === 0n ? 0n : min(maxUsage, (r.energyUsage * amount) / all);
        r.acquired -= amount;
      }
      r.energyUsage -= transferUsage;
      r.energyTime = now;
      const o = this.edit(owner);
      const left = delegated - amount;
      if (left === 0n) o.delegatedOut.delete(receiver);
      else o.delegatedOut.set(receiver, { amount: left, at: o.delegatedOut.get(receiver)!.at });
      o.frozenEnergy += amount;
      if (transferUsage > 0n) {
        o.energyUsage = this.decayed(o.energyUsage, o.energyTime, now) + transferUsage;
        o.energyTime = now;
      }
    });
  }

  /** UnfreezeBalanceV2Contract for ENERGY: the amount waits out the delay; unfreezings already due are paid back. */
  unfreeze(owner: string, amount: bigint): Outcome {
    const a = this.get(owner);
    if (!(a.frozenEnergy > 0n)) return { error: 'no frozenBalance(Energy)' };
    if (!(amount > 0n && amount <= a.frozenEnergy)) return { error: `Invalid unfreeze_balance, [${amount}] is error` };
    if (this.unfreezingCount(owner) >= UNFREEZE_MAX_TIMES) return { error: 'Invalid unfreeze operation, unfreezing times is over limit' };
    const now = this.now();
    const due = this.withdrawable(owner, now);
    return this.plan(0n, due, () => {
      const e = this.edit(owner);
      e.unfreezing = e.unfreezing.filter((u) => u.expireTime > now);
      e.unfreezing.push({ amount, expireTime: now + this.rules.unfreezeDelayMs });
      e.frozenEnergy -= amount;
    });
  }

  /** WithdrawExpireUnfreezeContract: every unfreezing whose delay has passed, back to the balance. */
  withdrawExpired(owner: string): Outcome {
    const now = this.now();
    const due = this.withdrawable(owner, now);
    if (due <= 0n) return { error: 'no unFreeze balance to withdraw ' };
    return this.plan(0n, due, () => {
      const e = this.edit(owner);
      e.unfreezing = e.unfreezing.filter((u) => u.expireTime > now);
    });
  }

  private plan(toVault: bigint, fromVault: bigint, apply: () => void): Plan {
    return {
      toVault,
      fromVault,
      commit: () => {
        apply();
        this.save();
      },
    };
  }

  /** Every delegation whose owner or receiver is `address`, for the account index. */
  delegations(address: string): { from: string; to: string; amount: bigint; at: bigint }[] {
    const out: { from: string; to: string; amount: bigint; at: bigint }[] = [];
    for (const [from, a] of this.accounts) {
      for (const [to, d] of a.delegatedOut) if (from === address || to === address) out.push({ from, to, ...d });
    }
    return out;
  }

  // ---- persistence ------------------------------------------------------------

  private save() {
    if (!this.file) return;
    const accounts = Object.fromEntries(
      [...this.accounts].map(([address, a]) => [
        address,
        {
          frozenEnergy: String(a.frozenEnergy),
          staked: a.staked,
          delegatedOut: Object.fromEntries([...a.delegatedOut].map(([to, d]) => [to, { amount: String(d.amount), at: String(d.at) }])),
          acquired: String(a.acquired),
          energyUsage: String(a.energyUsage),
          energyTime: String(a.energyTime),
          freeNetUsage: String(a.freeNetUsage),
          freeNetTime: String(a.freeNetTime),
          unfreezing: a.unfreezing.map((u) => ({ amount: String(u.amount), expireTime: String(u.expireTime) })),
        },
      ]),
    );
    // Written whole, then renamed: a stand-in killed mid-write keeps the previous state.
    writeFileSync(`${this.file}.tmp`, `${JSON.stringify({ accounts })}\n`);
    renameSync(`${this.file}.tmp`, this.file);
  }

  private load(file: string) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return; // a fresh chain
    }
    type Stored = Record<keyof AccountResources, unknown> & {
      delegatedOut: Record<string, { amount: string; at: string }>;
      unfreezing: { amount: string; expireTime: string }[];
    };
    const { accounts } = JSON.parse(text) as { accounts: Record<string, Stored> };
    for (const [address, s] of Object.entries(accounts)) {
      const big = (v: unknown) => BigInt(String(v ?? 0));
      this.accounts.set(address, {
        frozenEnergy: big(s.frozenEnergy),
        staked: s.staked === true,
        delegatedOut: new Map(Object.entries(s.delegatedOut ?? {}).map(([to, d]) => [to, { amount: big(d.amount), at: big(d.at) }])),
        acquired: big(s.acquired),
        energyUsage: big(s.energyUsage),
        energyTime: big(s.energyTime),
        freeNetUsage: big(s.freeNetUsage),
        freeNetTime: big(s.freeNetTime),
        unfreezing: (s.unfreezing ?? []).map((u) => ({ amount: big(u.amount), expireTime: big(u.expireTime) })),
      });
    }
  }
}

/**
 * A contract call's energy, as java-tron's getTotalEnergyLimitWithFixRatio caps it: the staked energy
 * left, then what the spendable balance buys, the whole at most what the fee_limit buys. A call
 * needing more runs out of energy and uses all of the cap; staked energy is spent before TRX is burnt.
 */
export function chargeCall(c: { energy: bigint; staked: bigint; spendable: bigint; feeLimit: bigint; price: bigint }) {
  const fromBalance = c.spendable > 0n ? c.spendable / c.price : 0n;
  const cap = min(c.staked + fromBalance, c.feeLimit / c.price);
  const enough = c.energy <= cap;
  const used = enough ? c.energy : cap;
  const fromStake = min(used, c.staked);
  return { used, fromStake, energyFee: (used - fromStake) * c.price, enough };
}

export const delegatedTotal = (a: AccountResources): bigint => [...a.delegatedOut.values()].reduce((sum, d) => sum + d.amount, 0n);
