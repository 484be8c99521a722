// Types of deposits and the transactions list (docs/api.md#deposits).
import type { Asset, BaseChain, DateTimeString, PageParams, ResolvedChain } from '../types.js';

export type DepositStatus = 'DETECTED' | 'CONFIRMING' | 'CONFIRMED' | 'SWEPT' | 'FAILED' | 'FLAGGED' | 'REJECTED';

/** The service fee taken at credit and what entered the balance, as decimal strings. */
export interface FeeRecord {
  fee_amount: string;
  net_amount: string;
}

export interface Deposit {
  id: string;
  wallet_id: string;
  chain: ResolvedChain;
  asset: Asset;
  txid: string | null;
  /** The on-chain amount in API units (6 places for stablecoins, 18 for ETH and BNB). */
  amount: string;
  status: DepositStatus;
  confirmations: number;
  /** Fixed when the deposit was first seen. */
  required_confirmations: number;
  detected_at: DateTimeString;
  confirmed_at: DateTimeString | null;
  swept_at: DateTimeString | null;
  /** Null until the deposit is credited (CONFIRMED). */
  fee_record: FeeRecord | null;
}

export interface ListDepositsParams extends PageParams {
  status?: DepositStatus;
  /** A base chain (ETH, on the key's network) or a resolved one (ETH_TESTNET). */
  chain?: BaseChain | ResolvedChain;
  wallet_id?: string;
  customer_id?: string;
}

export type TransactionType = 'DEPOSIT' | 'WITHDRAWAL';

/** One record of listTransactions: a deposit or a withdrawal. */
export interface TransactionRecord {
  id: string;
  type: TransactionType;
  chain: ResolvedChain;
  asset: Asset;
  txid: string | null;
  amount: string;
  status: string;
  fee_record: FeeRecord | null;
  /** detected_at of a deposit, requested_at of a withdrawal. */
  created_at: DateTimeString;
}

export interface ListTransactionsParams extends PageParams {
  type?: TransactionType;
  chain?: BaseChain | ResolvedChain;
}
