// Reads a workspace's withdrawal security settings for the security use
// cases, under the workspace's policy lock: concurrent changes of one
// workspace's settings (policy set, beneficiary add|remove) run one after
// another, so each compares against what the previous one committed.
import { DomainError } from '../../domain/errors.js';
import type { TxContext } from '../../domain/ports.js';
import { emptyPolicy, type Beneficiary, type WithdrawalPolicy } from '../../domain/security/withdrawal-policy.js';

export interface LoadedPolicy {
  /** The settings (amounts in their canonical spelling, as the repository returns them); the empty policy when never set. */
  policy: WithdrawalPolicy;
  /** False while the workspace never had a policy row. */
  stored: boolean;
  /** Every allowed destination, oldest first (same time: by address), so lists read the same every time. */
  destinations: Beneficiary[];
}

export async function loadPolicyForUpdate(tx: TxContext, workspaceId: string, now: Date): Promise<LoadedPolicy> {
  if (!(await tx.workspaces.get(workspaceId))) throw new DomainError('WORKSPACE_NOT_FOUND', `No workspace ${workspaceId}`);
  const row = await tx.security.getForUpdate(workspaceId);
  const policy: WithdrawalPolicy = row ?? emptyPolicy(workspaceId, now);
  return { policy, stored: row !== null, destinations: inListOrder(await tx.security.beneficiaries(workspaceId)) };
}

export const inListOrder = (destinations: readonly Beneficiary[]): Beneficiary[] =>
  [...destinations].sort((a, b) => a.addedAt.getTime() - b.addedAt.getTime() || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
