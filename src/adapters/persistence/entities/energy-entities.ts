// Tables of TRON's energy (ADR 0035): `energy_policies` (the operator's
// source, margin and longest wait per TRON network), `energy_delegations`
// (one loan of energy from the energy account to the address that must
// send, with the transfers that delegate it and take it back, and the TRX
// its transfer would have burnt without it) and `energy_fallbacks` (a
// transfer that burnt though the source is the stake, once each).
import { EntitySchema } from '@mikro-orm/core';

const units = { type: 'decimal', precision: 78, scale: 0 } as const;
const time = { type: 'Date', columnType: 'timestamptz' } as const;

export interface EnergyPolicyRow {
  network: string;
  source: string;
  marginPercent: number;
  maxWaitSeconds: number;
  updatedAt: Date;
}

export const EnergyPolicyEntity = new EntitySchema<EnergyPolicyRow>({
  name: 'EnergyPolicy',
  tableName: 'energy_policies',
  properties: {
    network: { type: 'text', primary: true },
    source: { enum: true, items: ['burn', 'stake'] },
    marginPercent: { type: 'integer' },
    maxWaitSeconds: { type: 'integer' },
    updatedAt: time,
  },
});

export interface EnergyDelegationRow {
  id: string;
  network: string;
  fromAddress: string;
  receiver: string;
  stake: string;
  energy: string;
  purpose: string;
  purposeId: string;
  status: string;
  delegateTransferId: string;
  reclaimTransferId: string | null;
  reclaimFailures: number;
  burnEquivalent: string;
  usedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const EnergyDelegationEntity = new EntitySchema<EnergyDelegationRow>({
  name: 'EnergyDelegation',
  tableName: 'energy_delegations',
  indexes: [
    { name: 'energy_delegations_work_idx', properties: ['network', 'status'] },
    { name: 'energy_delegations_purpose_idx', properties: ['purpose', 'purposeId'] },
    { name: 'energy_delegations_delegate_idx', properties: ['delegateTransferId'] },
    { name: 'energy_delegations_reclaim_idx', properties: ['reclaimTransferId'] },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    network: { type: 'text' },
    fromAddress: { type: 'text' },
    receiver: { type: 'text' },
    stake: units,
    energy: units,
    purpose: { enum: true, items: ['SWEEP', 'WITHDRAWAL', 'FAUCET'] },
    purposeId: { type: 'uuid' },
    status: { enum: true, items: ['DELEGATING', 'DELEGATED', 'RECLAIMING', 'RECLAIMED', 'CANCELLED'] },
    delegateTransferId: { type: 'uuid' },
    reclaimTransferId: { type: 'uuid', nullable: true },
    reclaimFailures: { type: 'integer' },
    burnEquivalent: units,
    usedBy: { type: 'uuid', nullable: true },
    createdAt: time,
    updatedAt: time,
  },
});

export interface EnergyFallbackRow {
  purpose: string;
  purposeId: string;
  network: string;
  reason: string;
  at: Date;
}

export const EnergyFallbackEntity = new EntitySchema<EnergyFallbackRow>({
  name: 'EnergyFallback',
  tableName: 'energy_fallbacks',
  indexes: [{ name: 'energy_fallbacks_network_at_idx', properties: ['network', 'at'] }],
  properties: {
    purpose: { type: 'text', primary: true },
    purposeId: { type: 'uuid', primary: true },
    network: { type: 'text' },
    reason: { type: 'text' },
    at: time,
  },
});
