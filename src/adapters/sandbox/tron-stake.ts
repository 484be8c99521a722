// The Stake 2.0 part of the TRON stand-in's HTTP API (ADR 0023): the five
// system contracts as java-tron's servlets take and show them (field names,
// proto3 defaults left out, `visible`), what each asks of the resource model
// when it is built or broadcast, and the resource reads (getaccountresource,
// getaccount's stake fields, the delegation queries). The HTTP routes and the
// backing transfers stay in tron-standin.ts. Only ENERGY is modelled.
import { codecInt, exactInt } from '../chains/tron-transactions.js';
import { requestAddress, shownAddress } from './tron-addresses.js';
import { UNFREEZE_MAX_TIMES, delegatedTotal, type AddressFacts, type Outcome, type TronResources } from './tron-resources.js';

export const STAKE_TYPES = [
  'FreezeBalanceV2Contract',
  'UnfreezeBalanceV2Contract',
  'DelegateResourceContract',
  'UnDelegateResourceContract',
  'WithdrawExpireUnfreezeContract',
] as const;
export type StakeType = (typeof STAKE_TYPES)[number];

/** The route that builds each contract, as on java-tron. */
export const STAKE_BUILD_ROUTES: Record<string, StakeType> = {
  freezebalancev2: 'FreezeBalanceV2Contract',
  unfreezebalancev2: 'UnfreezeBalanceV2Contract',
  delegateresource: 'DelegateResourceContract',
  undelegateresource: 'UnDelegateResourceContract',
  withdrawexpireunfreeze: 'WithdrawExpireUnfreezeContract',
};

/** The address fields of each contract's value (shown in base58 to a `visible` request). */
const ADDRESS_FIELDS = ['owner_address', 'receiver_address'] as const;

/** What a build or a broadcast of a Stake 2.0 contract needs to know from the backing node. */
export interface StakeContext {
  /** The owner's TRX, less the bandwidth it burns (sun). */
  balance: bigint;
  receiver(address: string): Promise<AddressFacts>;
}

/** java-tron's refusal at build time: the validation exception, as its servlets print it. */
export const buildRefusal = (message: string) => ({ Error: `class org.tron.core.exception.ContractValidateException : ${message}` });

/** An int64 of the request (a JSON number or a decimal string), exact, or null. */
function int64(value: unknown): bigint | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : null;
  if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) return BigInt(value);
  return null;
}

/** Refuses anything but ENERGY: the stand-in does not model staking for bandwidth or TRON power. */
function energyOnly(resource: unknown): string | null {
  // An absent resource is proto3's default, BANDWIDTH.
  const name = resource === undefined || resource === null || resource === 0 ? 'BANDWIDTH' : resource === 1 ? 'ENERGY' : String(resource);
  return name === 'ENERGY' ? null : `the sandbox's TRON stand-in models Stake 2.0 for ENERGY only, not ${name}`;
}

/**
 * The contract value java-tron builds from a request to `type`'s route, with hex addresses and
 * proto3 defaults left out, or why it is refused.
 */
export function stakeValue(type: StakeType, body: Record<string, unknown>): { value: Record<string, unknown> } | { error: string } {
  const visible = body.visible === true;
  const owner = requestAddress(body.owner_address, visible);
  if (!owner) return { error: 'Invalid address' };
  if (type === 'WithdrawExpireUnfreezeContract') return { value: { owner_address: owner } };
  const notEnergy = energyOnly(body.resource);
  if (notEnergy) return { error: notEnergy };
  const amountField = type === 'FreezeBalanceV2Contract' ? 'frozen_balance' : type === 'UnfreezeBalanceV2Contract' ? 'unfreeze_balance' : 'balance';
  const amount = int64(body[amountField] ?? 0);
  // The contract value goes to tronweb's encoder (the stand-in builds the bytes with it), which takes a JS number.
  const n = amount === null ? null : codecInt(amount);
  if (n === null) return { error: `${amountField} must be an int64 of sun below 2^53` };
  if (type === 'FreezeBalanceV2Contract') return { value: { owner_address: owner, ...(n ? { frozen_balance: n } : {}), resource: 'ENERGY' } };
  if (type === 'UnfreezeBalanceV2Contract') return { value: { owner_address: owner, ...(n ? { unfreeze_balance: n } : {}), resource: 'ENERGY' } };
  const receiver = requestAddress(body.receiver_address, visible);
  if (!receiver) return { error: 'Invalid receiverAddress' };
  const value: Record<string, unknown> = { owner_address: owner, resource: 'ENERGY', ...(n ? { balance: n } : {}), receiver_address: receiver };
  if (type === 'DelegateResourceContract') {
    if (body.lock === true) return { error: "the sandbox's TRON stand-in does not model locked delegations: send lock=false" };
    const period = int64(body.lock_period ?? 0);
    const p = period === null || period < 0n ? null : codecInt(period);
    if (p === null) return { error: 'lock_period must be an int64 below 2^53' };
    if (p) value.lock_period = p;
  }
  return { value };
}

/** The value as a `visible` answer shows it: base58 addresses. */
export function shownValue(value: Record<string, unknown>, visible: boolean): Record<string, unknown> {
  if (!visible) return value;
  const out = { ...value };
  for (const f of ADDRESS_FIELDS) if (typeof out[f] === 'string') out[f] = shownAddress(out[f], true);
  return out;
}

/**
 * What the contract (decoded from the signed bytes, tronweb's decoder: hex addresses, numbers) asks
 * of the resource model, validated as java-tron validates it; nothing changes until `commit`.
 */
export async function planStake(type: StakeType, value: Record<string, unknown>, resources: TronResources, ctx: StakeContext): Promise<Outcome> {
  const owner = String(value.owner_address ?? '').toLowerCase();
  if (type === 'WithdrawExpireUnfreezeContract') return resources.withdrawExpired(owner);
  const notEnergy = energyOnly(value.resource);
  if (notEnergy) return { error: notEnergy };
  const raw = type === 'FreezeBalanceV2Contract' ? value.frozen_balance : type === 'UnfreezeBalanceV2Contract' ? value.unfreeze_balance : value.balance;
  const amount = exactInt(raw ?? 0);
  if (amount === null) return { error: 'the amount is not an int64 the stand-in reads exactly' };
  if (type === 'FreezeBalanceV2Contract') return resources.freeze(owner, amount, ctx.balance);
  if (type === 'UnfreezeBalanceV2Contract') return resources.unfreeze(owner, amount);
  const receiver = String(value.receiver_address ?? '').toLowerCase();
  if (!/^41[0-9a-f]{40}$/.test(receiver)) return { error: 'Invalid receiverAddress' };
  if (type === 'UnDelegateResourceContract') return resources.undelegate(owner, receiver, amount);
  if (value.lock === true) return { error: "the sandbox's TRON stand-in does not model locked delegations: send lock=false" };
  return resources.delegate(owner, receiver, amount, await ctx.receiver(receiver));
}

// ---- reads -----------------------------------------------------------------

/** Leaves out proto3 defaults (zeros), as java-tron's JSON printer does. */
const nonZero = (o: Record<string, bigint | number>) => Object.fromEntries(Object.entries(o).filter(([, v]) => BigInt(v) !== 0n));

/** /wallet/getaccountresource of an existing account (java-tron's AccountResourceMessage). */
export function accountResource(resources: TronResources, address: string, totals: { totalNetLimit: bigint; totalNetWeight: bigint }) {
  return nonZero({
    freeNetUsed: resources.freeNetUsed(address),
    freeNetLimit: resources.rules.freeNetLimit,
    TotalNetLimit: totals.totalNetLimit,
    TotalNetWeight: totals.totalNetWeight,
    EnergyUsed: resources.energyUsed(address),
    EnergyLimit: resources.energyLimit(address),
    TotalEnergyLimit: resources.rules.totalEnergyCurrentLimit,
    TotalEnergyWeight: resources.totalEnergyWeight(),
  });
}

/** The Stake 2.0 fields of /wallet/getaccount (java-tron's Account message), defaults left out. */
export function accountStakeFields(resources: TronResources, address: string): Record<string, unknown> {
  const a = resources.get(address);
  const out: Record<string, unknown> = {};
  // As java-tron stores them: the raw usage and the time it was last consumed, not decayed to now.
  if (a.freeNetUsage) out.free_net_usage = a.freeNetUsage;
  if (a.freeNetTime) out.latest_consume_free_time = a.freeNetTime;
  if (a.staked) out.frozenV2 = [{ type: 'ENERGY', ...(a.frozenEnergy ? { amount: a.frozenEnergy } : {}) }];
  if (a.unfreezing.length) out.unfrozenV2 = a.unfreezing.map((u) => ({ type: 'ENERGY', unfreeze_amount: u.amount, unfreeze_expire_time: u.expireTime }));
  const resource = nonZero({
    energy_usage: a.energyUsage,
    latest_consume_time_for_energy: a.energyTime,
    delegated_frozenV2_balance_for_energy: delegatedTotal(a),
    acquired_delegated_frozenV2_balance_for_energy: a.acquired,
  });
  if (Object.keys(resource).length) out.account_resource = resource;
  return out;
}

/** /wallet/getdelegatedresourcev2: the delegation from one account to another (never locked here). */
export function delegatedResource(resources: TronResources, from: string, to: string, visible: boolean) {
  const d = resources.get(from).delegatedOut.get(to);
  if (!d || d.amount === 0n) return {};
  return { delegatedResource: [{ from: shownAddress(from, visible), to: shownAddress(to, visible), frozen_balance_for_energy: d.amount }] };
}

/** /wallet/getdelegatedresourceaccountindexv2: who delegated to the account, and to whom it delegated. */
export function delegationIndex(resources: TronResources, account: string, visible: boolean) {
  const all = resources.delegations(account);
  if (all.length === 0) return {};
  const fromAccounts = all.filter((d) => d.to === account).map((d) => shownAddress(d.from, visible));
  const toAccounts = all.filter((d) => d.from === account).map((d) => shownAddress(d.to, visible));
  const timestamp = all.reduce((t, d) => (d.at > t ? d.at : t), 0n);
  return {
    account: shownAddress(account, visible),
    ...(fromAccounts.length ? { fromAccounts } : {}),
    ...(toAccounts.length ? { toAccounts } : {}),
    ...(timestamp ? { timestamp } : {}),
  };
}

/** /wallet/getcandelegatedmaxsize for ENERGY (type 1): below 1 TRX it is 0, as on java-tron. */
export function canDelegateMaxSize(resources: TronResources, owner: string, type: unknown) {
  if (type !== 1) return {};
  const size = resources.canDelegate(owner);
  return size >= 1_000_000n ? { max_size: size } : {};
}

export const availableUnfreezeCount = (resources: TronResources, owner: string) => ({ count: UNFREEZE_MAX_TIMES - resources.unfreezingCount(owner) });

/** The network's bandwidth as getaccountresource reports it (TRON mainnet's order of magnitude; bandwidth is not staked here). */
const NET_TOTALS = { totalNetLimit: 43_200_000_000n, totalNetWeight: 26_000_000_000n };

type StakeRead = (resources: TronResources, body: Record<string, unknown>, exists: (address: string) => Promise<boolean>) => Promise<unknown>;

/** The resource reads, by route, as java-tron answers them (`{}` for an account that does not exist). */
export const STAKE_READ_ROUTES: Record<string, StakeRead> = {
  async getaccountresource(resources, body, exists) {
    const address = requestAddress(body.address, body.visible === true);
    return address && (await exists(address)) ? accountResource(resources, address, NET_TOTALS) : {};
  },
  async getdelegatedresourcev2(resources, body) {
    const visible = body.visible === true;
    const from = requestAddress(body.fromAddress, visible);
    const to = requestAddress(body.toAddress, visible);
    return from && to ? delegatedResource(resources, from, to, visible) : {};
  },
  async getdelegatedresourceaccountindexv2(resources, body) {
    const visible = body.visible === true;
    const account = requestAddress(body.value, visible);
    return account ? delegationIndex(resources, account, visible) : {};
  },
  async getcandelegatedmaxsize(resources, body) {
    const owner = requestAddress(body.owner_address, body.visible === true);
    return owner ? canDelegateMaxSize(resources, owner, body.type) : {};
  },
  async getcanwithdrawunfreezeamount(resources, body) {
    const owner = requestAddress(body.owner_address, body.visible === true);
    const at = Number.isSafeInteger(body.timestamp) && (body.timestamp as number) > 0 ? BigInt(body.timestamp as number) : undefined;
    const amount = owner ? resources.withdrawable(owner, at) : 0n;
    return amount ? { amount } : {};
  },
  async getavailableunfreezecount(resources, body, exists) {
    const owner = requestAddress(body.owner_address, body.visible === true);
    return owner && (await exists(owner)) ? availableUnfreezeCount(resources, owner) : {};
  },
};
