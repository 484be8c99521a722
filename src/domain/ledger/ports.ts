// The ledger's ports: the double-entry books (post, balances, history) and
// their audit (ledger check, custody coverage). Adapters implement them.
import type { Asset, Network } from '../money/networks.js';
import type { Balance, JournalEntry, LedgerAccountKind } from './journal.js';

/**
 * The double-entry ledger. `post` writes a balanced entry and moves the
 * cached balances atomically, taking row locks on the accounts in a fixed
 * order; it throws INSUFFICIENT_BALANCE when an AVAILABLE or LOCKED account
 * would go negative (the database refused the entry: its transaction is
 * aborted and must end, or be rolled back to a savepoint taken before the
 * post), and returns 'duplicate' (changing nothing) when the entry's
 * reference was posted before.
 */
export interface LedgerRepo {
  post(entry: JournalEntry): Promise<'posted' | 'duplicate'>;
  /**
   * Posts the entries as post() would one after another, in one go where it can (entries debiting no
   * guarded account): each result says whether that entry was posted or its reference already was.
   */
  postMany(entries: readonly JournalEntry[]): Promise<('posted' | 'duplicate')[]>;
  /** Of these references, those an entry was posted under. */
  postedAmong(references: readonly string[]): Promise<Set<string>>;
  /** Whether an entry with this reference was posted. */
  posted(reference: string): Promise<boolean>;
  /** Balances of the workspace on these networks, one per asset it ever held. */
  balances(workspaceId: string, networks: readonly Network[], filter: { network?: Network; asset?: Asset }): Promise<Balance[]>;
  /** Stablecoin volume (deposits credited plus withdrawals consumed) since `since`, USD in 6-place units. */
  volumeUsd(workspaceId: string, networks: readonly Network[], since: Date): Promise<bigint>;
  /**
   * The service fees the workspace was charged in [from, to) on these networks, per stablecoin: deposit
   * fees and withdrawal fees, less those given back (a reversed deposit, a refunded withdrawal). A
   * commitment debit is not a fee. API units of each asset.
   */
  feesCharged(workspaceId: string, networks: readonly Network[], from: Date, to: Date): Promise<Map<Asset, bigint>>;
  /** The balance of one of the service's own accounts (credit positive: an asset held is negative), 0 when it never moved. */
  serviceBalance(network: Network, asset: Asset, kind: LedgerAccountKind): Promise<bigint>;
  /**
   * The net change of the workspace's balances (available + locked) on these networks per asset and UTC
   * day, from the entries booked at or after `since` (later days included). Days without a change are absent.
   */
  dailyBalanceChanges(workspaceId: string, networks: readonly Network[], since: Date): Promise<DailyBalanceChange[]>;
}

/** What a workspace's balance of one asset on one network moved by in one UTC day (`day` as YYYY-MM-DD), API units. */
export interface DailyBalanceChange {
  network: Network;
  asset: Asset;
  day: string;
  change: bigint;
}

export interface LedgerCheckReport {
  ok: boolean;
  entries: number;
  accounts: number;
  unbalancedEntries: { reference: string; sum: string; postings: number }[];
  balanceMismatches: { account: string; cached: string; fromEntries: string }[];
  negativeBalances: { account: string; balance: string }[];
  /**
   * Per network and asset (API base units): what customers are owed (available + locked, less what they owe)
   * against what the service holds for them — hot (the treasury and the deposit addresses, as booked), cold
   * (forwarded to cold storage, ADR 0032), in transit to cold, and the faucet's — with the service's own part
   * (revenue, gas, funding) making up the rest. `covered`: custody ≥ customers. An asset that is not the
   * network's gas currency must be covered for `ok`; the gas currency's custody also pays the service's gas,
   * so its row is reported only.
   */
  custody: CustodyCoverage[];
}

export interface CustodyCoverage {
  network: string;
  asset: string;
  customers: string;
  hot: string;
  cold: string;
  inTransit: string;
  faucet: string;
  service: string;
  covered: boolean;
  /** The network's gas currency: reported, not part of `ok`. */
  gasCurrency: boolean;
}

/** Reconciliation of the ledger: every entry balances, cached balances equal the entries. */
export interface LedgerAudit {
  check(): Promise<LedgerCheckReport>;
}
