// Tables `withdrawal_policies` (one row per workspace that has settings) and
// `beneficiaries` (allowed destinations; chain null for an allowlist address
// valid on every chain). Set by the operator tool; withdrawals enforce them.
import { EntitySchema } from '@mikro-orm/core';
import type { Beneficiary, WithdrawalPolicy } from '../../../domain/security/withdrawal-policy.js';
import { workspaceReference } from './workspace-reference.js';

export const WithdrawalPolicyEntity = new EntitySchema<WithdrawalPolicy>({
  name: 'WithdrawalPolicy',
  tableName: 'withdrawal_policies',
  properties: {
    workspaceId: { type: 'uuid', primary: true },
    coolingOffHours: { type: 'integer', nullable: true },
    perTxLimit: { type: 'decimal', precision: 78, scale: 18, nullable: true },
    dailyLimit: { type: 'decimal', precision: 78, scale: 18, nullable: true },
    approvalAbove: { type: 'decimal', precision: 78, scale: 18, nullable: true },
    approvalQuorum: { type: 'integer', default: 1 },
    updatedAt: { type: 'Date', columnType: 'timestamptz' },
  },
});

export const BeneficiaryEntity = new EntitySchema<Beneficiary>({
  name: 'Beneficiary',
  tableName: 'beneficiaries',
  indexes: [{ name: 'beneficiaries_workspace_idx', properties: ['workspaceId', 'chain', 'address'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    workspaceId: workspaceReference(),
    chain: { type: 'text', nullable: true },
    address: { type: 'text' },
    addedAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
