// The operator's treasury policy per network and asset (issue 31, ADR 0032):
// the hot treasury keeps a working float; above its ceiling the surplus goes
// to a cold address whose key never touches a server; below its floor a
// refill is asked of a person. Pure: callers pass the time.
//
// A new cold address is a security event: whoever can change it can send the
// whole surplus anywhere. It takes effect only after a cooling-off period
// (default 48 h), during which it can be cancelled. The period of a change is
// the one in force before it (a first address: the one it is set with), so
// shortening the period is itself a change that waits for the old one.
import { DomainError } from '../errors.js';
import type { Asset, Network } from '../money/networks.js';

export const DEFAULT_COOLING_OFF_HOURS = 48;
/** A year: a longer cooling-off is a typo, not a policy. */
export const MAX_COOLING_OFF_HOURS = 24 * 365;

/** A cold address asked for, not in force yet. */
export interface PendingColdAddress {
  coldAddress: string;
  /** The cooling-off period that applies once this change is in force. */
  coolingOffHours: number;
  requestedAt: Date;
  effectiveAt: Date;
}

export interface TreasuryPolicy {
  network: Network;
  asset: Asset;
  /** The cold address in force; null until the first one's cooling-off ends. */
  coldAddress: string | null;
  /** API base units of the asset. Above the ceiling, the surplus over the target float is forwarded. */
  ceiling: bigint;
  targetFloat: bigint;
  /** Below the floor, a refill up to the target float is asked for. */
  floor: bigint;
  /** The cooling-off period in force. */
  coolingOffHours: number;
  pending: PendingColdAddress | null;
  updatedAt: Date;
}

/** floor ≤ target float ≤ ceiling, the ceiling above zero: anything else forwards or refills in a loop. */
export function checkLimits(limits: { ceiling: bigint; targetFloat: bigint; floor: bigint }): void {
  const { ceiling, targetFloat, floor } = limits;
  if (ceiling <= 0n) throw new DomainError('VALIDATION_ERROR', 'the ceiling must be above zero', [{ path: 'ceiling', message: 'must be above zero' }]);
  if (targetFloat > ceiling) throw new DomainError('VALIDATION_ERROR', 'the target float must not be above the ceiling', [{ path: 'float', message: 'must not be above the ceiling' }]);
  if (floor > targetFloat) throw new DomainError('VALIDATION_ERROR', 'the floor must not be above the target float', [{ path: 'floor', message: 'must not be above the target float' }]);
}

/** The policy as it stands at `now`: a pending cold address whose cooling-off has ended is in force. */
export function inForce(policy: TreasuryPolicy, now: Date): TreasuryPolicy {
  const p = policy.pending;
  if (!p || p.effectiveAt.getTime() > now.getTime()) return policy;
  return { ...policy, coldAddress: p.coldAddress, coolingOffHours: p.coolingOffHours, pending: null };
}

export interface PolicyChange {
  network: Network;
  asset: Asset;
  ceiling: bigint;
  targetFloat: bigint;
  floor: bigint;
  /** A cold address to move to (in the chain's normal form, already checked); undefined keeps the one there. */
  coldAddress?: string;
  /** The cooling-off period from now on; undefined keeps the one in force (48 h for a first policy). */
  coolingOffHours?: number;
}

/**
 * The policy after the operator's change at `now`. The limits apply at once.
 * A new cold address (or a new cooling-off period) waits for the period in
 * force; it replaces a change still pending (whose wait starts over).
 */
export function changePolicy(current: TreasuryPolicy | null, change: PolicyChange, now: Date, minimumHours = 0): TreasuryPolicy {
  checkLimits(change);
  if (change.coolingOffHours !== undefined && change.coolingOffHours < minimumHours) {
    throw new DomainError('VALIDATION_ERROR', `the cooling-off must be at least ${minimumHours} h here`, [{ path: 'cooling_off_hours', message: `at least ${minimumHours}` }]);
  }
  const base = current ? inForce(current, now) : null;
  if (change.coldAddress === undefined && !base?.coldAddress && !base?.pending) {
    throw new DomainError('VALIDATION_ERROR', 'a treasury policy needs a cold address (--cold-address)', [{ path: 'cold_address', message: 'is required' }]);
  }
  // Naming the address in force again while a change waits withdraws the change (its period with it).
  if (change.coldAddress !== undefined && base?.pending && change.coldAddress === base.coldAddress && change.coolingOffHours === undefined) {
    return { ...base, ceiling: change.ceiling, targetFloat: change.targetFloat, floor: change.floor, pending: null, updatedAt: now };
  }
  // A first address (none in force, none waiting: a first policy, or one whose first change was cancelled) waits
  // the period it is set with; any other change the period in force. Never below the deployment's minimum, so
  // never at once in production.
  const first = !base?.coldAddress && !base?.pending;
  const hoursNow = Math.max((first ? change.coolingOffHours : undefined) ?? base?.coolingOffHours ?? change.coolingOffHours ?? DEFAULT_COOLING_OFF_HOURS, minimumHours);
  // A new address keeps the period in force unless one is given: it never inherits the period of the change it replaces.
  const wantedHours = change.coolingOffHours ?? (change.coldAddress !== undefined ? (base?.coolingOffHours ?? hoursNow) : (base?.pending?.coolingOffHours ?? hoursNow));
  const wantedAddress = change.coldAddress ?? base?.pending?.coldAddress ?? base?.coldAddress ?? null;
  const policy: TreasuryPolicy = {
    network: change.network,
    asset: change.asset,
    coldAddress: base?.coldAddress ?? null,
    ceiling: change.ceiling,
    targetFloat: change.targetFloat,
    floor: change.floor,
    coolingOffHours: hoursNow,
    pending: base?.pending ?? null,
    updatedAt: now,
  };
  const addressChanges = change.coldAddress !== undefined && change.coldAddress !== (base?.pending?.coldAddress ?? base?.coldAddress ?? null);
  const hoursChange = change.coolingOffHours !== undefined && change.coolingOffHours !== (base?.pending?.coolingOffHours ?? hoursNow);
  // Raising the period needs no wait: it only makes later changes slower.
  if (!addressChanges && hoursChange && wantedHours > hoursNow && !base?.pending) return { ...policy, coolingOffHours: wantedHours };
  if (!addressChanges && !hoursChange) return policy;
  return {
    ...policy,
    pending: { coldAddress: wantedAddress!, coolingOffHours: wantedHours, requestedAt: now, effectiveAt: new Date(now.getTime() + hoursNow * 3_600_000) },
  };
}

/** The policy with its pending change withdrawn; null when nothing was pending. */
export function cancelPending(policy: TreasuryPolicy, now: Date): TreasuryPolicy | null {
  const current = inForce(policy, now);
  if (!current.pending) return null;
  return { ...current, pending: null, updatedAt: now };
}
