// Operator use case: `ops policy show`, the owner's mainnet withdrawal
// security settings and every allowed destination with when its cooling-off
// ends (docs/operations.md#withdrawal-security). Read-only.
import { inject, injectable } from 'tsyringe';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { coolingOffEndsAt, policyView, type Beneficiary } from '../../domain/security/withdrawal-policy.js';
import type { PolicyView } from '../../domain/webhooks/events.js';
import { TOKENS } from '../tokens.js';
import { loadPolicyForUpdate } from './load-policy.js';

export interface WithdrawalPolicyReport {
  workspaceId: string;
  policy: PolicyView;
  /** When the settings last changed; null when they were never set. */
  updatedAt: Date | null;
  /** Allowlist addresses (chain null) and beneficiaries, oldest first. */
  destinations: { beneficiary: Beneficiary; coolingOffEndsAt: Date | null }[];
}

@injectable()
export class ShowWithdrawalPolicy {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(workspaceId: string): Promise<WithdrawalPolicyReport> {
    // The policy lock is the repository's only way to read it; held for a moment, it only makes a concurrent change wait.
    return this.uow.run(async (tx) => {
      const { policy, stored, destinations } = await loadPolicyForUpdate(tx, workspaceId, this.clock.now());
      return {
        workspaceId,
        policy: policyView(policy, destinations),
        updatedAt: stored ? policy.updatedAt : null,
        destinations: destinations.map((beneficiary) => ({ beneficiary, coolingOffEndsAt: coolingOffEndsAt(policy, beneficiary.addedAt) })),
      };
    });
  }
}
