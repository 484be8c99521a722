// WithdrawalPolicyRepo over MikroORM, bound to the entity manager of one transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { WithdrawalPolicyRepo } from '../../domain/security/ports.js';
import type { Beneficiary, WithdrawalPolicy } from '../../domain/security/withdrawal-policy.js';
import { lockUntilCommit } from './advisory-lock.js';
import { storedAmount } from '../../domain/security/policy-amount.js';
import { BeneficiaryEntity, WithdrawalPolicyEntity } from './entities/index.js';

export class MikroWithdrawalPolicyRepo implements WithdrawalPolicyRepo {
  constructor(private readonly em: EntityManager) {}

  async getForUpdate(workspaceId: string): Promise<WithdrawalPolicy | null> {
    await lockUntilCommit(this.em, `withdrawal-policy:${workspaceId}`);
    const row = await this.em.findOne(WithdrawalPolicyEntity, { workspaceId }, { disableIdentityMap: true });
    // NUMERIC(78,18) reads back as "1000.000000000000000000": amounts leave in their canonical spelling.
    return row
      ? { ...row, perTxLimit: storedAmount(row.perTxLimit), dailyLimit: storedAmount(row.dailyLimit), approvalAbove: storedAmount(row.approvalAbove) }
      : null;
  }

  async save(policy: WithdrawalPolicy): Promise<void> {
    await this.em.upsert(WithdrawalPolicyEntity, { ...policy });
  }

  beneficiaries(workspaceId: string): Promise<Beneficiary[]> {
    return this.em.find(BeneficiaryEntity, { workspaceId }, { orderBy: { addedAt: 'asc', id: 'asc' }, disableIdentityMap: true });
  }

  async addBeneficiary(beneficiary: Beneficiary): Promise<void> {
    await this.em.insert(BeneficiaryEntity, { ...beneficiary });
  }

  async removeBeneficiary(id: string): Promise<void> {
    await this.em.nativeDelete(BeneficiaryEntity, { id });
  }
}
