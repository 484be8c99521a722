// What the withdrawal security use cases need from storage.
import type { Beneficiary, WithdrawalPolicy } from './withdrawal-policy.js';

/** The workspace's withdrawal security settings, inside the unit of work. */
export interface WithdrawalPolicyRepo {
  /** The policy (null when never set), amounts in their canonical spelling, locking the workspace's settings until the transaction ends. */
  getForUpdate(workspaceId: string): Promise<WithdrawalPolicy | null>;
  /** Inserts or replaces the policy row. */
  save(policy: WithdrawalPolicy): Promise<void>;
  /** Every allowed destination of the workspace: allowlist addresses (chain null) and beneficiaries. */
  beneficiaries(workspaceId: string): Promise<Beneficiary[]>;
  addBeneficiary(beneficiary: Beneficiary): Promise<void>;
  removeBeneficiary(id: string): Promise<void>;
}
