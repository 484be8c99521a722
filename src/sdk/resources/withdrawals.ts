// Types of withdrawals (docs/api.md#withdrawals).
import type { Asset, BaseChain, DateTimeString, PageParams, ResolvedChain } from '../types.js';
import type { FeeRecord } from './deposits.js';

export type WithdrawalStatus = 'PENDING_APPROVAL' | 'PENDING' | 'UNDER_REVIEW' | 'PROCESSING' | 'CONFIRMING' | 'CONFIRMED' | 'FAILED' | 'CANCELLED';

/** What the destination receives is `amount − fee`; the fee is taken from the balance at broadcast. */
export interface CreateWithdrawalParams {
  chain: BaseChain;
  asset: Asset;
  /** A decimal string with at most the asset's places. */
  amount: string;
  /** TRON base58, or EIP-55 checksummed hex on BSC and ETH. */
  destination_address: string;
}

/** The create response: PENDING, or PENDING_APPROVAL above the owner's approval threshold on mainnet. */
export interface CreatedWithdrawal {
  id: string;
  chain: ResolvedChain;
  asset: Asset;
  amount: string;
  fee: string;
  net_amount: string;
  status: WithdrawalStatus;
  /** The key the request ran under (the SDK always sends one). */
  idempotency_key: string | null;
  requested_at: DateTimeString;
}

export interface Withdrawal {
  id: string;
  chain: ResolvedChain;
  asset: Asset;
  amount: string;
  status: WithdrawalStatus;
  txid: string | null;
  destination_address: string;
  idempotency_key: string | null;
  requested_at: DateTimeString;
  confirmed_at: DateTimeString | null;
  /** Set once the fee is taken (at broadcast); null before, and for a cancelled or failed withdrawal. */
  fee_record: FeeRecord | null;
}

/** A record of listWithdrawalRecords (GET /v2/transactions/withdrawals): no idempotency_key. */
export interface WithdrawalRecord {
  id: string;
  chain: ResolvedChain;
  asset: Asset;
  txid: string | null;
  amount: string;
  status: WithdrawalStatus;
  destination_address: string;
  requested_at: DateTimeString;
  fee_record: FeeRecord | null;
}

export interface ListWithdrawalsParams extends PageParams {
  status?: WithdrawalStatus;
  chain?: BaseChain | ResolvedChain;
}
