// TRON's Stake 2.0 for the service's energy (issue 34): reading an account's
// resources and stake, and building the five transactions the service signs
// (FreezeBalanceV2, DelegateResource, UnDelegateResource, UnfreezeBalanceV2,
// WithdrawExpireUnfreeze, all for ENERGY, never locked), each checked field
// by field before it is signed (tron-transactions.ts), like every transfer.
//
// java-tron writes JSON with proto3's defaults left out: a zero amount, a
// false flag, and the enum's first value (BANDWIDTH) are absent, so a
// frozenV2 entry without `type` is a bandwidth stake. Sun is a JSON number:
// anything past 2^53 is refused rather than rounded.
import { ChainUnavailableError } from '../../domain/chains/chain-port.js';
import type { Network } from '../../domain/money/networks.js';
import type { StakeOperation, TronAccountResources, TronEnergyStake } from '../../domain/energy/resources.js';
import type { SignDigest, SignedTransaction } from '../../domain/transfers/ports.js';
import { refusalText } from './tron-node.js';
import { exactInt, lower, signVerified, type BuiltTransaction, type TronContractType } from './tron-transactions.js';

type Post = <T>(path: string, body: Record<string, unknown>) => Promise<T>;

/** What each operation is built by, and signed as. */
const BUILDERS: Record<StakeOperation['kind'], { path: string; type: TronContractType }> = {
  stake: { path: 'wallet/freezebalancev2', type: 'FreezeBalanceV2Contract' },
  delegate: { path: 'wallet/delegateresource', type: 'DelegateResourceContract' },
  reclaim: { path: 'wallet/undelegateresource', type: 'UnDelegateResourceContract' },
  unstake: { path: 'wallet/unfreezebalancev2', type: 'UnfreezeBalanceV2Contract' },
  withdraw_unstaked: { path: 'wallet/withdrawexpireunfreeze', type: 'WithdrawExpireUnfreezeContract' },
};

export class TronStaking {
  constructor(
    private readonly network: Network,
    private readonly post: Post,
    private readonly hexAddress: (address: string) => string,
  ) {}

  private sun(value: unknown, what: string): bigint {
    if (value === undefined || value === null) return 0n;
    const n = exactInt(value);
    if (n === null || n < 0n) throw new ChainUnavailableError(this.network, 'bad_response', `${what}: not an exact count (${String(value).slice(0, 40)})`);
    return n;
  }

  /** The account's resources now; null when the account was never activated. */
  async resources(address: string): Promise<TronAccountResources | null> {
    const r = await this.post<Record<string, unknown>>('wallet/getaccountresource', { address: this.hexAddress(address) });
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw new ChainUnavailableError(this.network, 'bad_response', 'getaccountresource: not an object');
    if (typeof r.Error === 'string') throw new ChainUnavailableError(this.network, 'bad_response', `getaccountresource: ${r.Error.slice(0, 200)}`);
    // Every account pays its transactions from somewhere: a node that knows the network has its totals.
    if (r.TotalEnergyLimit === undefined && r.freeNetLimit === undefined) return null;
    const n = (key: string) => this.sun(r[key], `getaccountresource ${key}`);
    return {
      energyLimit: n('EnergyLimit'),
      energyUsed: n('EnergyUsed'),
      freeBandwidthLimit: n('freeNetLimit'),
      freeBandwidthUsed: n('freeNetUsed'),
      bandwidthLimit: n('NetLimit'),
      bandwidthUsed: n('NetUsed'),
      totalEnergyLimit: n('TotalEnergyLimit'),
      totalEnergyWeight: n('TotalEnergyWeight'),
    };
  }

  /** The account's energy stake, delegations and unstaking; null when the account was never activated. */
  async stake(address: string): Promise<TronEnergyStake | null> {
    const a = await this.post<Record<string, unknown>>('wallet/getaccount', { address: this.hexAddress(address) });
    if (typeof a !== 'object' || a === null || Array.isArray(a)) throw new ChainUnavailableError(this.network, 'bad_response', 'getaccount: not an object');
    if (a.address === undefined) return null;
    const list = (key: string): Record<string, unknown>[] => {
      const v = a[key];
      if (v === undefined) return [];
      if (!Array.isArray(v) || !v.every((e) => typeof e === 'object' && e !== null)) throw new ChainUnavailableError(this.network, 'bad_response', `getaccount ${key}: not a list`);
      return v as Record<string, unknown>[];
    };
    const resource = (a.account_resource ?? {}) as Record<string, unknown>;
    const staked = list('frozenV2')
      .filter((f) => f.type === 'ENERGY')
      .reduce((t, f) => t + this.sun(f.amount, 'getaccount frozenV2'), 0n);
    const unfreezing = list('unfrozenV2')
      .filter((u) => u.type === 'ENERGY')
      .map((u) => {
        const expiresAt = exactInt(u.unfreeze_expire_time);
        if (expiresAt === null) throw new ChainUnavailableError(this.network, 'bad_response', 'getaccount unfrozenV2: no expiration');
        return { amount: this.sun(u.unfreeze_amount, 'getaccount unfrozenV2'), expiresAt: Number(expiresAt) };
      });
    return {
      balance: this.sun(a.balance, 'getaccount balance'),
      staked,
      delegated: this.sun(resource.delegated_frozenV2_balance_for_energy, 'getaccount delegated'),
      acquired: this.sun(resource.acquired_delegated_frozenV2_balance_for_energy, 'getaccount acquired'),
      unfreezing,
    };
  }

  /** Sun of energy stake `from` has delegated to `to` (0 when none). */
  async delegatedTo(from: string, to: string): Promise<bigint> {
    const out = await this.post<{ delegatedResource?: unknown }>('wallet/getdelegatedresourcev2', { fromAddress: this.hexAddress(from), toAddress: this.hexAddress(to) });
    if (out.delegatedResource === undefined) return 0n;
    if (!Array.isArray(out.delegatedResource)) throw new ChainUnavailableError(this.network, 'bad_response', 'getdelegatedresourcev2: not a list');
    return (out.delegatedResource as Record<string, unknown>[]).reduce((t, d) => t + this.sun(d.frozen_balance_for_energy, 'getdelegatedresourcev2'), 0n);
  }

  /** Builds the operation on the node, checks every field of what it built, and signs it. */
  async sign(owner: string, op: StakeOperation, sign: SignDigest): Promise<SignedTransaction> {
    const ownerHex = this.hexAddress(owner);
    const { path, type } = BUILDERS[op.kind];
    const amount = 'amount' in op ? op.amount : null;
    if (amount !== null && (amount <= 0n || amount > BigInt(Number.MAX_SAFE_INTEGER))) throw new Error(`${this.network}: ${op.kind} of ${amount} sun cannot be sent exactly`);
    const receiver = 'receiver' in op ? this.hexAddress(op.receiver) : null;
    // Sun stays a bigint: the node client writes it as a JSON integer (tronJson), never through a JS number.
    const body: Record<string, unknown> = { owner_address: ownerHex };
    let expect: (v: Record<string, unknown>) => boolean;
    switch (op.kind) {
      case 'stake':
        Object.assign(body, { frozen_balance: amount, resource: 'ENERGY' });
        expect = (v) => exactInt(v.frozen_balance) === amount && v.resource === 'ENERGY';
        break;
      case 'unstake':
        Object.assign(body, { unfreeze_balance: amount, resource: 'ENERGY' });
        expect = (v) => exactInt(v.unfreeze_balance) === amount && v.resource === 'ENERGY';
        break;
      case 'delegate':
        // Never locked: a delegation the service cannot take back at once would strand the energy on a deposit address.
        Object.assign(body, { receiver_address: receiver, balance: amount, resource: 'ENERGY', lock: false });
        expect = (v) => lower(v.receiver_address) === receiver && exactInt(v.balance) === amount && v.resource === 'ENERGY' && !v.lock && !v.lock_period;
        break;
      case 'reclaim':
        Object.assign(body, { receiver_address: receiver, balance: amount, resource: 'ENERGY' });
        expect = (v) => lower(v.receiver_address) === receiver && exactInt(v.balance) === amount && v.resource === 'ENERGY';
        break;
      case 'withdraw_unstaked':
        expect = () => true; // the owner is all it carries
        break;
    }
    // A refusal of the node's validation comes back as TransferRefused (tron-node.ts): the stake, the delegation or
    // the balance is not what the request assumed, on the backend that answered.
    const built = await this.post<BuiltTransaction & { result?: { message?: string } }>(path, body);
    if (built.raw_data_hex === undefined && built.result?.message) {
      throw new ChainUnavailableError(this.network, 'bad_response', `${path.slice(7)}: ${refusalText(built.result.message).slice(0, 300)}`);
    }
    return signVerified(this.network, built, type, ownerHex, expect, sign);
  }
}
