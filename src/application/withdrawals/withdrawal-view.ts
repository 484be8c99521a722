// The withdrawal as the API shows it (docs/api.md#withdrawals): the create
// response, the detail (with destination_address), the list record, and the
// data of WITHDRAWAL_* events (the detail plus withdrawal_id and workspace_id,
// the fee object on WITHDRAWAL_CONFIRMED only).
import { Amount } from '../../domain/money/amount.js';
import { formatRate } from '../../domain/money/rate.js';
import type { Withdrawal } from '../../domain/withdrawals/withdrawal.js';

const fmt = (w: Withdrawal, units: bigint) => Amount.ofUnits(w.asset, units).toString();

/** The fee is taken at broadcast: shown from then on, and not for a withdrawal that failed (it came back whole). */
const feeRecord = (w: Withdrawal) =>
  w.status === 'PROCESSING' || w.status === 'CONFIRMING' || w.status === 'CONFIRMED' ? { fee_amount: fmt(w, w.fee), net_amount: fmt(w, w.netAmount) } : null;

export function withdrawalCreated(w: Withdrawal) {
  return {
    id: w.id,
    chain: w.network,
    asset: w.asset,
    amount: fmt(w, w.amount),
    fee: fmt(w, w.fee),
    net_amount: fmt(w, w.netAmount),
    status: w.status,
    idempotency_key: w.idempotencyKey,
    requested_at: w.requestedAt.toISOString(),
  };
}

export function withdrawalDetail(w: Withdrawal) {
  return {
    id: w.id,
    chain: w.network,
    asset: w.asset,
    amount: fmt(w, w.amount),
    status: w.status,
    txid: w.txid,
    destination_address: w.destination,
    idempotency_key: w.idempotencyKey,
    requested_at: w.requestedAt.toISOString(),
    confirmed_at: w.confirmedAt?.toISOString() ?? null,
    fee_record: feeRecord(w),
  };
}

export function withdrawalRecord(w: Withdrawal) {
  return {
    id: w.id,
    chain: w.network,
    asset: w.asset,
    txid: w.txid,
    amount: fmt(w, w.amount),
    status: w.status,
    destination_address: w.destination,
    requested_at: w.requestedAt.toISOString(),
    fee_record: feeRecord(w),
  };
}

export const withdrawalEventData = (w: Withdrawal) => ({ ...withdrawalDetail(w), withdrawal_id: w.id, workspace_id: w.workspaceId });

/** WITHDRAWAL_CONFIRMED's data: the fee object of 6.2 (gross debited, net sent on chain, the flat fee's rate 0). */
export const withdrawalConfirmedData = (w: Withdrawal) => ({
  ...withdrawalEventData(w),
  fee: {
    gross_amount: fmt(w, w.amount),
    fee_amount: fmt(w, w.fee),
    net_amount: fmt(w, w.netAmount),
    applied_rate: formatRate(0n),
    applied_min_fee: fmt(w, 0n),
  },
});
