// The `data` of every event (docs/api.md#events), one zod schema each. The
// publisher checks what it sends against them, the OpenAPI document lists
// them in its `webhooks` section, and the tests check every delivered body
// against them. Deposit, withdrawal and commitment events are produced by
// the issues that build those resources; their shapes are fixed here first.
import { z } from 'zod';
import type { EventName } from '../../domain/webhooks/events.js';
import { amountString, asset, resolvedChain, timestamp, uuid } from '../http/common-schemas.js';

/** A decimal string in the units of an asset or of USD (any number of places up to 18). */
const decimal = z.string().regex(/^\d{1,60}(\.\d{1,18})?$/).meta({ example: '1000.000000' });

const feeRecord = z.strictObject({ fee_amount: amountString, net_amount: amountString });

/** The fee object of DEPOSIT_SWEPT and WITHDRAWAL_CONFIRMED. */
const fee = z
  .strictObject({
    gross_amount: amountString.meta({ description: 'The on-chain amount' }),
    fee_amount: amountString.meta({ description: 'The service fee' }),
    net_amount: amountString.meta({ description: 'What entered the balance (deposit) or left it (withdrawal)' }),
    applied_rate: decimal,
    applied_min_fee: decimal,
  })
  .meta({ id: 'EventFee' });

const depositView = {
  deposit_id: uuid,
  id: uuid,
  workspace_id: uuid,
  wallet_id: uuid,
  customer_id: uuid.nullable(),
  chain: resolvedChain,
  asset,
  txid: z.string().nullable(),
  amount: amountString,
  status: z.enum(['DETECTED', 'CONFIRMING', 'CONFIRMED', 'SWEPT', 'FAILED', 'FLAGGED', 'REJECTED']),
  confirmations: z.number().int().min(0),
  required_confirmations: z.number().int().min(0),
  detected_at: timestamp,
  confirmed_at: timestamp.nullable(),
  swept_at: timestamp.nullable(),
  fee_record: feeRecord.nullable(),
};

const deposit = z.strictObject(depositView).meta({ id: 'DepositEventData' });
const depositSwept = z.strictObject({ ...depositView, status: z.literal('SWEPT'), fee }).meta({ id: 'DepositSweptEventData' });

const withdrawalView = {
  withdrawal_id: uuid,
  id: uuid,
  workspace_id: uuid,
  chain: resolvedChain,
  asset,
  amount: amountString,
  status: z.enum(['PENDING_APPROVAL', 'PENDING', 'UNDER_REVIEW', 'PROCESSING', 'CONFIRMING', 'CONFIRMED', 'FAILED', 'CANCELLED']),
  txid: z.string().nullable(),
  destination_address: z.string(),
  idempotency_key: z.string().nullable(),
  requested_at: timestamp,
  confirmed_at: timestamp.nullable(),
  fee_record: feeRecord.nullable(),
};

const withdrawal = z.strictObject(withdrawalView).meta({ id: 'WithdrawalEventData' });
const withdrawalConfirmed = z
  .strictObject({ ...withdrawalView, status: z.literal('CONFIRMED'), fee })
  .meta({ id: 'WithdrawalConfirmedEventData' });

const commitmentAdjustment = z
  .strictObject({
    commitment_id: uuid,
    workspace_id: uuid,
    id: uuid,
    period_start: timestamp,
    period_end: timestamp,
    prorated_floor_usdt: amountString,
    billed_fees_usdt: amountString,
    delta_usdt: amountString,
    recovery_mode: z.enum(['AUTO_DEBIT', 'MANUAL']),
    debited_usdt: amountString,
    outstanding_usdt: amountString,
    status: z.enum(['NOT_DUE', 'OPEN', 'SETTLED']),
    settled_at: timestamp.nullable(),
  })
  .meta({ id: 'CommitmentAdjustmentEventData' });

const policy = z
  .strictObject({
    allowlist: z.array(z.string()).meta({ description: 'Destination addresses allowed on every chain' }),
    cooling_off_hours: z.number().int().min(0).nullable(),
    per_tx_limit: decimal.nullable(),
    daily_limit: decimal.nullable(),
    approval_above: decimal.nullable(),
    approval_quorum: z
      .number()
      .int()
      .min(1)
      .max(10)
      .meta({ description: 'How many distinct members of the workspace must approve a withdrawal above approval_above' }),
  })
  .meta({ id: 'WithdrawalPolicy' });

const policyChanged = z
  .strictObject({
    workspace_id: uuid,
    network: z.literal('MAINNET'),
    changed: z.array(z.enum(['allowlist', 'cooling_off_hours', 'per_tx_limit', 'daily_limit', 'approval_above', 'approval_quorum'])).min(1),
    policy,
    changed_at: timestamp,
  })
  .meta({ id: 'WithdrawalPolicyChangedEventData' });

const beneficiaryAdded = z
  .strictObject({
    workspace_id: uuid,
    chain: resolvedChain,
    address: z.string(),
    added_at: timestamp,
    cooling_off_ends_at: timestamp.nullable().meta({ description: 'When withdrawals to it may start; null without a cooling-off period' }),
  })
  .meta({ id: 'BeneficiaryAddedEventData' });

const beneficiaryRemoved = z
  .strictObject({ workspace_id: uuid, chain: resolvedChain, address: z.string(), removed_at: timestamp })
  .meta({ id: 'BeneficiaryRemovedEventData' });

export const EVENT_DATA_SCHEMAS: Record<EventName, z.ZodType> = {
  DEPOSIT_DETECTED: deposit,
  DEPOSIT_CONFIRMED: deposit,
  DEPOSIT_SWEPT: depositSwept,
  DEPOSIT_FLAGGED: deposit,
  DEPOSIT_REJECTED: deposit,
  WITHDRAWAL_PROCESSING: withdrawal,
  WITHDRAWAL_CONFIRMED: withdrawalConfirmed,
  WITHDRAWAL_FAILED: withdrawal,
  WITHDRAWAL_CANCELLED: withdrawal,
  WITHDRAWAL_HELD: withdrawal,
  WITHDRAWAL_PENDING_APPROVAL: withdrawal,
  BENEFICIARY_ADDED: beneficiaryAdded,
  BENEFICIARY_REMOVED: beneficiaryRemoved,
  WITHDRAWAL_POLICY_CHANGED: policyChanged,
  COMMITMENT_ADJUSTMENT_EMITTED: commitmentAdjustment,
};

/** The whole body of a delivery of one event. */
export const eventEnvelopeSchema = (event: EventName) =>
  z.strictObject({ event: z.literal(event), created_at: timestamp, data: EVENT_DATA_SCHEMAS[event] });

