// Every MikroORM entity schema of the service, for the ORM configuration.
// They describe the tables completely, so `npm run migration:create` diffs cleanly.
import { ApiKeyEntity } from './api-key-entity.js';
import { CustomerEntity } from './customer-entity.js';
import { ChainBlockEntity, ChainCursorEntity, DepositEntity, ScreeningEntryEntity } from './deposit-entities.js';
import { FeeOverrideEntity, FeeTierEntity } from './fee-entities.js';
import { JournalEntryEntity, LedgerAccountEntity, PostingEntity } from './ledger-entities.js';
import { HdAccountEntity } from './hd-account-entity.js';
import { AddressPoolEntity } from './address-pool-entity.js';
import { HdAccountKeyEntity } from './hd-account-key-entity.js';
import { IdempotencyKeyEntity } from './idempotency-key-entity.js';
import { NetworkSwitchEntity } from './network-switch-entity.js';
import { RateBucketEntity } from './rate-bucket-entity.js';
import { RequestSignatureEntity } from './request-signature-entity.js';
import { ListCountEntity } from './list-count-entity.js';
import { WalletEntity } from './wallet-entity.js';
import { WebhookDeliveryEntity, WebhookEndpointEntity, WebhookEventEntity, WebhookNoticeEntity } from './webhook-entities.js';
import { BeneficiaryEntity, WithdrawalPolicyEntity } from './security-entities.js';
import { WorkspaceEntity } from './workspace-entity.js';
import { OutgoingTransferEntity, SenderNonceEntity, SweepEntity, SweepPolicyEntity, TransferAttemptEntity } from './transfer-entities.js';
import { EnergyDelegationEntity, EnergyFallbackEntity, EnergyPolicyEntity } from './energy-entities.js';
import { WithdrawalEntity } from './withdrawal-entities.js';
import { FaucetAssetLimitEntity, FaucetDripEntity, FaucetDripItemEntity, FaucetSettingsEntity } from './faucet-entities.js';
import { ChainReconciliationEntity, PayoutHoldEntity, ReconciliationAckEntity } from './reconciliation-entities.js';
import { CommitmentAdjustmentEntity, CommitmentEntity, CommitmentPauseEntity, FxRateEntity } from './commitment-entities.js';
import { UnexpectedDepositEntity } from './unexpected-deposit-entity.js';
import { AuditEntity, InvitationEntity, MemberEntity, SessionEntity, SignInFailureEntity, WithdrawalApprovalEntity } from './member-entities.js';
import { RefillCursorEntity, TreasuryPolicyEntity, TreasuryPolicyEventEntity } from './treasury-entities.js';

export const ENTITIES = [
  WorkspaceEntity,
  ApiKeyEntity,
  RequestSignatureEntity,
  IdempotencyKeyEntity,
  RateBucketEntity,
  CustomerEntity,
  HdAccountEntity,
  AddressPoolEntity,
  WalletEntity,
  ListCountEntity,
  NetworkSwitchEntity,
  LedgerAccountEntity,
  JournalEntryEntity,
  PostingEntity,
  FeeTierEntity,
  FeeOverrideEntity,
  WebhookEndpointEntity,
  WebhookEventEntity,
  WebhookDeliveryEntity,
  WebhookNoticeEntity,
  WithdrawalPolicyEntity,
  BeneficiaryEntity,
  DepositEntity,
  ChainCursorEntity,
  ChainBlockEntity,
  ScreeningEntryEntity,
  HdAccountKeyEntity,
  OutgoingTransferEntity,
  TransferAttemptEntity,
  SenderNonceEntity,
  SweepEntity,
  SweepPolicyEntity,
  EnergyPolicyEntity,
  EnergyDelegationEntity,
  EnergyFallbackEntity,
  WithdrawalEntity,
  FaucetDripEntity,
  FaucetDripItemEntity,
  FaucetAssetLimitEntity,
  FaucetSettingsEntity,
  CommitmentEntity,
  CommitmentPauseEntity,
  CommitmentAdjustmentEntity,
  FxRateEntity,
  ChainReconciliationEntity,
  PayoutHoldEntity,
  ReconciliationAckEntity,
  TreasuryPolicyEntity,
  TreasuryPolicyEventEntity,
  RefillCursorEntity,
  UnexpectedDepositEntity,
  MemberEntity,
  SessionEntity,
  SignInFailureEntity,
  AuditEntity,
  WithdrawalApprovalEntity,
  InvitationEntity,
];
export {
  MemberEntity,
  SessionEntity,
  SignInFailureEntity,
  AuditEntity,
  WithdrawalApprovalEntity,
  InvitationEntity,
  UnexpectedDepositEntity,
  RefillCursorEntity,
  TreasuryPolicyEntity,
  TreasuryPolicyEventEntity,
  ChainReconciliationEntity,
  PayoutHoldEntity,
  ReconciliationAckEntity,
  CommitmentAdjustmentEntity,
  CommitmentEntity,
  CommitmentPauseEntity,
  FxRateEntity,
  FaucetAssetLimitEntity,
  FaucetDripEntity,
  FaucetDripItemEntity,
  FaucetSettingsEntity,
  WithdrawalEntity,
  HdAccountKeyEntity,
  OutgoingTransferEntity,
  TransferAttemptEntity,
  SenderNonceEntity,
  SweepEntity,
  SweepPolicyEntity,
  EnergyPolicyEntity,
  EnergyDelegationEntity,
  EnergyFallbackEntity,
  ChainBlockEntity,
  ChainCursorEntity,
  DepositEntity,
  ScreeningEntryEntity,
  BeneficiaryEntity,
  WebhookEventEntity,
  WebhookNoticeEntity,
  WithdrawalPolicyEntity,
  ApiKeyEntity,
  FeeOverrideEntity,
  FeeTierEntity,
  JournalEntryEntity,
  LedgerAccountEntity,
  PostingEntity,
  CustomerEntity,
  HdAccountEntity,
  IdempotencyKeyEntity,
  NetworkSwitchEntity,
  RateBucketEntity,
  RequestSignatureEntity,
  WalletEntity,
  WebhookDeliveryEntity,
  WebhookEndpointEntity,
  WorkspaceEntity,
};
