// Operator use cases of the fee schedule (ops fees tier set|list, fees
// override set|clear): the defaults of docs/api.md#fee-schedule hold until the
// operator changes them.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import type { FeeOverride, FeeTier } from '../../domain/fees/fee-schedule.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class ManageFeeSchedule {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  listTiers(): Promise<FeeTier[]> {
    return this.uow.run((tx) => tx.fees.tiers());
  }

  async setTier(tier: FeeTier): Promise<FeeTier[]> {
    return this.uow.run(async (tx) => {
      await tx.fees.setTier(tier);
      return tx.fees.tiers();
    });
  }

  async setOverride(o: FeeOverride): Promise<FeeOverride> {
    if (o.expiresAt.getTime() <= this.clock.now().getTime()) {
      throw new DomainError('VALIDATION_ERROR', 'expires-at must be in the future');
    }
    await this.uow.run(async (tx) => {
      if (!(await tx.workspaces.get(o.workspaceId))) throw new DomainError('WORKSPACE_NOT_FOUND', `No workspace ${o.workspaceId}`);
      await tx.fees.setOverride(o);
    });
    return o;
  }

  async clearOverride(workspaceId: string): Promise<boolean> {
    return this.uow.run((tx) => tx.fees.clearOverride(workspaceId));
  }
}
