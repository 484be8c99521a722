// The deposit as the API shows it (docs/api.md#deposits) and as DEPOSIT_*
// events carry it (the view plus deposit_id, workspace_id, wallet_id and
// customer_id; no fee object before DEPOSIT_SWEPT).
import type { Deposit } from '../../domain/deposits/deposit.js';
import { Amount } from '../../domain/money/amount.js';
import { formatRate } from '../../domain/money/rate.js';

export interface DepositView {
  id: string;
  wallet_id: string;
  chain: string;
  asset: string;
  txid: string | null;
  amount: string;
  status: string;
  confirmations: number;
  required_confirmations: number;
  detected_at: string;
  confirmed_at: string | null;
  swept_at: string | null;
  fee_record: { fee_amount: string; net_amount: string } | null;
}

export function depositView(d: Deposit): DepositView {
  const fmt = (units: bigint) => Amount.ofUnits(d.asset, units).toString();
  return {
    id: d.id,
    wallet_id: d.walletId,
    chain: d.network,
    asset: d.asset,
    txid: d.txid,
    amount: fmt(d.amount),
    status: d.status,
    confirmations: d.confirmations,
    required_confirmations: d.requiredConfirmations,
    detected_at: d.detectedAt.toISOString(),
    confirmed_at: d.confirmedAt?.toISOString() ?? null,
    swept_at: d.sweptAt?.toISOString() ?? null,
    fee_record: d.fee ? { fee_amount: fmt(d.fee.feeAmount), net_amount: fmt(d.fee.netAmount) } : null,
  };
}

export const depositEventData = (d: Deposit) => ({
  ...depositView(d),
  deposit_id: d.id,
  workspace_id: d.workspaceId,
  customer_id: d.customerId,
});

/** DEPOSIT_SWEPT's data: the event data with the fee object of the deposit's credit. */
export function depositSweptData(d: Deposit) {
  const fmt = (units: bigint) => Amount.ofUnits(d.asset, units).toString();
  const fee = d.fee;
  return {
    ...depositEventData(d),
    fee: {
      gross_amount: fmt(d.amount),
      fee_amount: fmt(fee?.feeAmount ?? 0n),
      net_amount: fmt(fee?.netAmount ?? d.amount),
      applied_rate: formatRate(fee?.appliedRatePpm ?? 0n),
      applied_min_fee: fmt(fee?.appliedMinFee ?? 0n),
    },
  };
}
