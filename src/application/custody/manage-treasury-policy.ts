// `ops treasury policy set | show | cancel` (issue 31, ADR 0032,
// docs/operations.md#custody): the operator's cold address, ceiling, target
// float, floor and cooling-off per network and asset. A new cold address
// waits for the cooling-off in force and can be cancelled meanwhile; every
// change is kept in treasury_policy_events.
import { inject, injectable } from 'tsyringe';
import { MAX_COOLING_OFF_HOURS, cancelPending, changePolicy, inForce, type TreasuryPolicy } from '../../domain/custody/treasury-policy.js';
import type { TreasuryPolicyEvent } from '../../domain/custody/ports.js';
import { DomainError } from '../../domain/errors.js';
import { Amount } from '../../domain/money/amount.js';
import { baseChainOf, isAssetOnChain, type Asset, type Network } from '../../domain/money/networks.js';
import type { Clock, NetworkRegistry, UnitOfWork } from '../../domain/ports.js';
import type { AddressCodec } from '../../domain/custody/ports.js';
import { InternalAddresses } from './internal-addresses.js';
import { lostDestinationReason } from './lost-destination.js';
import { TOKENS } from '../tokens.js';

export interface TreasuryPolicyView {
  chain: Network;
  asset: Asset;
  /** The cold address in force; null until the first one's cooling-off ends. */
  cold_address: string | null;
  ceiling: string;
  target_float: string;
  floor: string;
  cooling_off_hours: number;
  /** A cold address (or cooling-off) asked for and not in force yet: it takes effect at `effective_at` unless cancelled. */
  pending: { cold_address: string; cooling_off_hours: number; requested_at: string; effective_at: string } | null;
}

export const treasuryPolicyView = (p: TreasuryPolicy): TreasuryPolicyView => ({
  chain: p.network,
  asset: p.asset,
  cold_address: p.coldAddress,
  ceiling: Amount.ofUnits(p.asset, p.ceiling).toString(),
  target_float: Amount.ofUnits(p.asset, p.targetFloat).toString(),
  floor: Amount.ofUnits(p.asset, p.floor).toString(),
  cooling_off_hours: p.coolingOffHours,
  pending: p.pending
    ? {
        cold_address: p.pending.coldAddress,
        cooling_off_hours: p.pending.coolingOffHours,
        requested_at: p.pending.requestedAt.toISOString(),
        effective_at: p.pending.effectiveAt.toISOString(),
      }
    : null,
});

export interface SetTreasuryPolicy {
  network: Network;
  asset: Asset;
  coldAddress?: string;
  ceiling: string;
  targetFloat: string;
  floor: string;
  coolingOffHours?: number;
}

@injectable()
export class ManageTreasuryPolicy {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.AddressCodec) private readonly codec: AddressCodec,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(InternalAddresses) private readonly internal: InternalAddresses,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.MinColdCoolingOffHours) private readonly minimumHours: number,
  ) {}

  async set(input: SetTreasuryPolicy): Promise<TreasuryPolicyView> {
    if (!isAssetOnChain(baseChainOf(input.network), input.asset)) {
      throw new DomainError('VALIDATION_ERROR', `${input.asset} is not an asset of ${input.network}`, [{ path: 'asset', message: `not an asset of ${input.network}` }]);
    }
    const hours = input.coolingOffHours;
    if (hours !== undefined && (!Number.isInteger(hours) || hours < 0 || hours > MAX_COOLING_OFF_HOURS)) {
      throw new DomainError('VALIDATION_ERROR', `the cooling-off is a whole number of hours, 0 to ${MAX_COOLING_OFF_HOURS}`, [{ path: 'cooling_off_hours', message: 'out of range' }]);
    }
    const amount = (value: string, field: string) => Amount.parse(value, input.asset, field, { allowZero: true }).units;
    const ceiling = amount(input.ceiling, 'ceiling');
    const targetFloat = amount(input.targetFloat, 'float');
    const floor = amount(input.floor, 'floor');
    const coldAddress = input.coldAddress === undefined ? undefined : await this.checkedColdAddress(input.network, input.coldAddress);
    return this.uow.run(async (tx) => {
      if (coldAddress !== undefined && (await this.internal.isInternal(tx, input.network, coldAddress))) {
        throw new DomainError('VALIDATION_ERROR', 'the cold address is an address of this service (a treasury, gas tank, dispenser or deposit address): cold storage is held outside it', [
          { path: 'cold_address', message: 'is an address of this service' },
        ]);
      }
      const before = await tx.treasury.policyForUpdate(input.network, input.asset);
      // The time is read once the row is ours: a forward deciding meanwhile (under the same lock) saw no later time.
      const now = this.clock.now();
      const after = changePolicy(before, { network: input.network, asset: input.asset, ceiling, targetFloat, floor, coldAddress, coolingOffHours: hours }, now, this.minimumHours);
      await tx.treasury.savePolicy(after);
      for (const event of policyEvents(before, after, now)) await tx.treasury.record(event);
      return treasuryPolicyView(inForce(after, now));
    });
  }

  /** Withdraws the cold address change still waiting; CONFLICT when none is (nothing changes). */
  async cancel(network: Network, asset: Asset): Promise<TreasuryPolicyView> {
    return this.uow.run(async (tx) => {
      const policy = await tx.treasury.policyForUpdate(network, asset);
      // Read once the row is ours: a change a forward already acted on is in force, and not cancelled.
      const now = this.clock.now();
      const cancelled = policy ? cancelPending(policy, now) : null;
      if (!policy || !cancelled) throw new DomainError('CONFLICT', `no cold address change of ${network} ${asset} is waiting: nothing to cancel`);
      await tx.treasury.savePolicy(cancelled);
      const pending = inForce(policy, now).pending!;
      await tx.treasury.record({ network, asset, kind: 'COLD_ADDRESS_CANCELLED', detail: { cold_address: pending.coldAddress, effective_at: pending.effectiveAt.toISOString() }, at: now });
      return treasuryPolicyView(cancelled);
    });
  }

  async show(network?: Network, asset?: Asset): Promise<{ policies: TreasuryPolicyView[] }> {
    const now = this.clock.now();
    const all = await this.uow.run((tx) => tx.treasury.policies());
    return { policies: all.filter((p) => (!network || p.network === network) && (!asset || p.asset === asset)).map((p) => treasuryPolicyView(inForce(p, now))) };
  }

  /** The address in the chain's normal form; never one whose funds nobody can move, nor a token contract. */
  private async checkedColdAddress(network: Network, address: string): Promise<string> {
    const chain = baseChainOf(network);
    const normal = this.codec.normalize(chain, address);
    const invalid = (why: string) => new DomainError('VALIDATION_ERROR', `the cold address ${why}`, [{ path: 'cold_address', message: why }]);
    if (normal === null) throw invalid(`is not a valid ${network} address (${chain === 'TRON' ? 'base58, T…' : 'EIP-55 checksummed 0x…'})`);
    const lost = await lostDestinationReason(this.codec, this.networks, chain, normal);
    if (lost) throw invalid(`is ${lost}`);
    return normal;
  }
}

/** What changed between two versions of a policy, as history events. */
function policyEvents(before: TreasuryPolicy | null, after: TreasuryPolicy, now: Date): TreasuryPolicyEvent[] {
  const base = { network: after.network, asset: after.asset, at: now };
  const events: TreasuryPolicyEvent[] = [];
  const prior = before ? inForce(before, now) : null;
  if (prior?.ceiling !== after.ceiling || prior.targetFloat !== after.targetFloat || prior.floor !== after.floor || prior.coolingOffHours !== after.coolingOffHours) {
    events.push({ ...base, kind: 'LIMITS_SET', detail: { ceiling: after.ceiling.toString(), target_float: after.targetFloat.toString(), floor: after.floor.toString(), cooling_off_hours: after.coolingOffHours } });
  }
  const p = after.pending;
  if (p && (prior?.pending?.coldAddress !== p.coldAddress || prior.pending.requestedAt.getTime() !== p.requestedAt.getTime())) {
    events.push({
      ...base,
      kind: 'COLD_ADDRESS_REQUESTED',
      detail: { cold_address: p.coldAddress, replaces: after.coldAddress, cooling_off_hours: p.coolingOffHours, effective_at: p.effectiveAt.toISOString() },
    });
  }
  return events;
}
