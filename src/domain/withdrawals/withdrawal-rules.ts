// The owner's withdrawal security on mainnet (ADR 0018), checked when a
// withdrawal is requested, in the same transaction as its lock:
//   1. destination on the allowlist or a beneficiary of the network, once
//      either exists (DESTINATION_NOT_ALLOWLISTED);
//   2. that entry's cooling-off over (DESTINATION_COOLING_OFF);
//   3. the amount within per_tx_limit (PER_TRANSACTION_LIMIT);
//   4. the amount plus the last 24 hours' withdrawals within daily_limit
//      (DAILY_LIMIT): stablecoins together, 1:1 as USD; ETH and BNB each in
//      its own units;
//   5. above approval_above it waits for approval (not a violation).
// A setting never set does not restrict. Pure: the caller reads the
// settings and the window's totals under the workspace's lock.
import { ASSET_SPECS, type Asset, type Network } from '../money/networks.js';
import { coolingOffEndsAt, type Beneficiary, type WithdrawalPolicy } from '../security/withdrawal-policy.js';

export type PolicyViolation = 'DESTINATION_NOT_ALLOWLISTED' | 'DESTINATION_COOLING_OFF' | 'PER_TRANSACTION_LIMIT' | 'DAILY_LIMIT';

/** Policy amounts are compared at their own precision: 18 places. */
const POLICY_PLACES = 18;

/** A policy amount ("2500.5") in base units of 18 places. */
export function policyUnits(value: string): bigint {
  const [whole, frac = ''] = value.split('.');
  return BigInt(whole!) * 10n ** BigInt(POLICY_PLACES) + BigInt(frac.padEnd(POLICY_PLACES, '0') || '0');
}

/** An amount of `asset` (API precision) in base units of 18 places. */
export const atPolicyScale = (asset: Asset, units: bigint): bigint => units * 10n ** BigInt(POLICY_PLACES - ASSET_SPECS[asset].apiDecimals);

/** What the daily limit sums together: every stablecoin as USD, a native asset on its own. */
export const dailyGroupOf = (asset: Asset): string => (ASSET_SPECS[asset].native ? asset : 'USD');

export interface PolicyCheck {
  policy: WithdrawalPolicy | null;
  /** The workspace's allowlist (chain null) and beneficiaries. */
  allowed: readonly Beneficiary[];
  network: Network;
  asset: Asset;
  /** API precision. */
  amount: bigint;
  destination: string;
  /** The workspace's mainnet withdrawals of the last 24 hours that count (not cancelled, not failed), per asset, API precision. */
  recent: readonly { asset: Asset; amount: bigint }[];
  now: Date;
}

export interface PolicyOutcome {
  violation: PolicyViolation | null;
  needsApproval: boolean;
}

export function checkWithdrawalPolicy(c: PolicyCheck): PolicyOutcome {
  const { policy } = c;
  const restricting = c.allowed.filter((b) => b.chain === null || b.chain.endsWith('_MAINNET'));
  if (restricting.length > 0) {
    const matching = restricting.filter((b) => b.address === c.destination && (b.chain === null || b.chain === c.network));
    if (matching.length === 0) return { violation: 'DESTINATION_NOT_ALLOWLISTED', needsApproval: false };
    const usable = matching.some((b) => {
      const ends = coolingOffEndsAt(policy, b.addedAt);
      return ends === null || ends.getTime() <= c.now.getTime();
    });
    if (!usable) return { violation: 'DESTINATION_COOLING_OFF', needsApproval: false };
  }
  const amount = atPolicyScale(c.asset, c.amount);
  if (policy?.perTxLimit && amount > policyUnits(policy.perTxLimit)) return { violation: 'PER_TRANSACTION_LIMIT', needsApproval: false };
  if (policy?.dailyLimit) {
    const group = dailyGroupOf(c.asset);
    const before = c.recent.filter((r) => dailyGroupOf(r.asset) === group).reduce((sum, r) => sum + atPolicyScale(r.asset, r.amount), 0n);
    if (before + amount > policyUnits(policy.dailyLimit)) return { violation: 'DAILY_LIMIT', needsApproval: false };
  }
  const needsApproval = policy?.approvalAbove ? amount > policyUnits(policy.approvalAbove) : false;
  return { violation: null, needsApproval };
}
