// The ports the domain and the use cases depend on. Adapters implement them;
// only the composition roots in src/bootstrap know which adapter is which.
import type { EnergyRepo } from './energy/delegation.js';
import type { DepositRepo, ScanStateRepo, ScreeningRepo, UnexpectedDepositRepo } from './deposits/ports.js';
import type { AuditRepo, MemberRepo, SessionRepo } from './members/ports.js';
import type { ApiKey } from './auth/api-key.js';
import type { IdempotencyRecord, IdempotencyScope } from './idempotency/idempotency.js';
import type { Page, PageRequest } from './pagination.js';
import type { NetworkSide } from './money/networks.js';
import type { JobName, JobPayloads } from './jobs/job-names.js';
import type { Network } from './money/networks.js';
import type { Workspace, WorkspaceStatus } from './workspaces/workspace.js';
import type { Customer, CustomerFilter, CustomerPatch } from './customers/customer.js';
import type { EventPublisher, WebhookDeliveryRepo, WebhookEndpointRepo } from './webhooks/ports.js';
import type { WithdrawalPolicyRepo } from './security/ports.js';
import type { Wallet, WalletFilter } from './wallets/wallet.js';
import type { FeeOverride, FeeTier } from './fees/fee-schedule.js';
import type { Asset, BaseChain } from './money/networks.js';
import type { SweepRepo, TransferRepo } from './transfers/ports.js';
import type { WithdrawalRepo } from './withdrawals/ports.js';
import type { CommitmentRepo, FxRateRepo } from './commitments/ports.js';
import type { FaucetRepo } from './faucet/ports.js';
import type { TransactionLog } from './withdrawals/transaction-log.js';
import type { TreasuryRepo } from './custody/ports.js';
import type { LedgerRepo } from './ledger/ports.js';

export interface Clock {
  now(): Date;
}

/** Enqueues jobs. Inside a unit of work the job commits or rolls back with it. */
export interface JobQueue {
  enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<void>;
  /** enqueue() of many jobs of one name in one statement. */
  enqueueMany<N extends JobName>(name: N, payloads: readonly JobPayloads[N][]): Promise<void>;
}

export interface WorkspaceRepo {
  add(workspace: Workspace): Promise<void>;
  get(id: string): Promise<Workspace | null>;
  /** Sets the status; returns false when there is no such workspace. */
  setStatus(id: string, status: WorkspaceStatus, at: Date): Promise<boolean>;
  /** Sets (or clears, with null) where operator notices go; returns false when there is no such workspace. */
  setContactEmail(id: string, email: string | null, at: Date): Promise<boolean>;
  /** Freezes or unfreezes the workspace's withdrawals (compliance); returns false when there is no such workspace. */
  setWithdrawalsFrozen(id: string, frozen: boolean, at: Date): Promise<boolean>;
}

export interface ApiKeyRepo {
  add(key: ApiKey): Promise<void>;
  findByKeyId(keyId: string): Promise<ApiKey | null>;
  /** Keys of the workspace on one side that are neither revoked nor expired at `now`, newest first. */
  listActive(workspaceId: string, side: NetworkSide, now: Date, page: PageRequest): Promise<Page<ApiKey>>;
  /**
   * Counts the workspace's active keys on one side (neither revoked nor
   * expired at `now`) and holds, until the transaction ends, a lock that makes
   * every other caller of this method for the same workspace and side wait:
   * concurrent creations count one after another.
   */
  countActiveForUpdate(workspaceId: string, side: NetworkSide, now: Date): Promise<number>;
  /** Revokes a non-revoked key of the workspace and side; false when there is none. */
  revoke(id: string, workspaceId: string, side: NetworkSide, at: Date): Promise<boolean>;
}

/** What claiming an idempotency scope found: another transaction holds it, or it is ours with its record if any. */
export type IdempotencyClaim = { locked: false } | { locked: true; existing: IdempotencyRecord | null };

/**
 * Idempotency records, inside the unit of work of the operation they guard.
 * `claim` takes a lock held until the transaction ends (locked false: another
 * transaction holds it, the first request is still in flight) and, with it,
 * reads the scope's record that has not expired at `now`, as committed once
 * the lock was taken.
 */
export interface IdempotencyStore {
  claim(scope: IdempotencyScope, now: Date): Promise<IdempotencyClaim>;
  /** Saves the record, replacing an expired one of the same scope. */
  save(record: IdempotencyRecord): Promise<void>;
}

export interface CustomerRepo {
  /** Adds a customer; false when its external_ref is taken in the workspace and side. */
  add(customer: Customer): Promise<boolean>;
  get(workspaceId: string, side: NetworkSide, id: string): Promise<Customer | null>;
  list(workspaceId: string, side: NetworkSide, filter: CustomerFilter, page: PageRequest): Promise<Page<Customer>>;
  /** Applies the patch; null when there is no such customer. */
  update(workspaceId: string, side: NetworkSide, id: string, patch: CustomerPatch, at: Date): Promise<Customer | null>;
}

/**
 * BIP-44 accounts and address indexes, allocated in the database. `account`
 * returns the (workspace, network) account, creating it from one global
 * sequence; `nextIndex` takes the next index of an account under a row lock,
 * so concurrent creates never reuse or skip one (a rollback gives it back).
 * The pool (ADR 0009, issue 35) holds indexes taken ahead with their derived
 * addresses: a create claims one without waiting for another's lock (a
 * rollback puts it back), so none is skipped either.
 */
export interface DerivationAllocator {
  account(workspaceId: string, network: Network): Promise<number>;
  nextIndex(account: number): Promise<number>;
  /** The account's lowest pooled index no other transaction holds, taken out of the pool, and how many stay; null when none is free. */
  claimPooled(account: number): Promise<{ index: number; address: string; left: number } | null>;
  /** Whether this transaction may refill the account's pool (one refiller at a time; the lock lasts until it ends). */
  tryLockPool(account: number): Promise<boolean>;
  /** How many indexes the account's pool holds. */
  pooled(account: number): Promise<number>;
  /** Takes `count` consecutive indexes under the account's row lock; the first. */
  nextIndexes(account: number, count: number): Promise<number>;
  pool(account: number, entries: readonly { index: number; address: string }[]): Promise<void>;
}

export interface WalletRepo {
  add(wallet: Wallet): Promise<void>;
  get(workspaceId: string, networks: readonly Network[], id: string): Promise<Wallet | null>;
  /** ARCHIVED wallets are left out unless the filter asks for that status. */
  list(workspaceId: string, networks: readonly Network[], filter: WalletFilter, page: PageRequest): Promise<Page<Wallet>>;
  setStatus(id: string, status: Wallet['status']): Promise<void>;
  /** SWEPT wallets among these go back to ACTIVE (they received a new deposit). */
  reactivate(ids: readonly string[]): Promise<void>;
  /** The wallets of the network at these canonical addresses, whatever their workspace (the deposit scanner). */
  byAddresses(network: Network, addresses: readonly string[]): Promise<Wallet[]>;
  /** Whether any wallet of any workspace has one of these canonical addresses on one of its networks. */
  existsAt(candidates: readonly { networks: readonly Network[]; address: string }[]): Promise<boolean>;
}

/** Operator switch of networks for new wallets and withdrawals (never for monitoring). */
export interface NetworkSwitches {
  /** Explicit operator settings; a network absent here keeps its configured default. */
  overrides(): Promise<Partial<Record<Network, boolean>>>;
  set(network: Network, enabled: boolean, at: Date): Promise<void>;
}

/** Fee configuration of the operator (ops fees ...): tiers and per-workspace overrides. */
export interface FeeConfigRepo {
  /** The configured tiers, or the defaults of docs/api.md#fee-schedule when none is configured. */
  tiers(): Promise<FeeTier[]>;
  setTier(tier: FeeTier): Promise<void>;
  override(workspaceId: string): Promise<FeeOverride | null>;
  setOverride(override: FeeOverride): Promise<void>;
  clearOverride(workspaceId: string): Promise<boolean>;
}


/** What a unit of work hands to the use case: repositories and jobs bound to one transaction. */
export interface TxContext {
  workspaces: WorkspaceRepo;
  apiKeys: ApiKeyRepo;
  customers: CustomerRepo;
  wallets: WalletRepo;
  derivation: DerivationAllocator;
  ledger: LedgerRepo;
  fees: FeeConfigRepo;
  idempotency: IdempotencyStore;
  webhooks: WebhookEndpointRepo;
  deliveries: WebhookDeliveryRepo;
  security: WithdrawalPolicyRepo;
  deposits: DepositRepo;
  scanState: ScanStateRepo;
  screening: ScreeningRepo;
  transfers: TransferRepo;
  sweeps: SweepRepo;
  energy: EnergyRepo;
  withdrawals: WithdrawalRepo;
  transactionLog: TransactionLog;
  faucet: FaucetRepo;
  commitments: CommitmentRepo;
  fx: FxRateRepo;
  treasury: TreasuryRepo;
  unexpected: UnexpectedDepositRepo;
  members: MemberRepo;
  sessions: SessionRepo;
  audit: AuditRepo;
  /** Publishes events: their deliveries commit with the change that caused them. */
  events: EventPublisher;
  jobs: JobQueue;
}

/**
 * Runs `work` in one database transaction. State written through the context
 * and jobs enqueued through `ctx.jobs` commit together or not at all. Called
 * inside another unit of work, it runs as a nested transaction (savepoint) of it.
 */
export interface UnitOfWork {
  /** One transaction; inside another unit of work, a savepoint of it (or, inside a `savepoint`, a part of that). */
  run<T>(work: (ctx: TxContext) => Promise<T>): Promise<T>;
  /**
   * Inside a unit of work: `work` in a savepoint, whose writes are undone if
   * it throws while the outer transaction goes on. The units of work it
   * starts join the savepoint instead of opening their own.
   */
  savepoint<T>(work: (ctx: TxContext) => Promise<T>): Promise<T>;
  /**
   * A read without a transaction: each statement runs on its own, with no
   * BEGIN and COMMIT round trips (the hot read paths). Only for reads whose
   * statements need not see one snapshot, typically one statement. Inside a
   * unit of work it joins it. Publishing an event or a job through it throws.
   */
  read<T>(work: (ctx: TxContext) => Promise<T>): Promise<T>;
}

/** A key and its workspace as read for authentication. */
export interface Credential {
  key: ApiKey;
  /** Null when the workspace is gone. */
  workspace: Workspace | null;
  /** The state authentication depends on (the key but its last use, the workspace's status), as read: admission checks it is still so. */
  version: string;
  /** Kept from an earlier request of this process rather than read for this one: a refusal decided on it is decided again on a fresh read. */
  remembered: boolean;
}

/** Read side used on the authentication hot path (no transaction). */
export interface CredentialStore {
  /**
   * The key with that key_id. A store may keep what it read (ADR 0008): admission refuses a kept copy that no
   * longer matches the database, so a revocation still holds from the next request. `fresh` reads the database.
   */
  findCredential(keyId: string, opts?: { fresh?: boolean }): Promise<Credential | null>;
}

export interface AdmissionRequest {
  apiKeyId: string;
  keyId: string;
  /** The credential's version the request was checked against: nothing is admitted or recorded when the key or its workspace changed since. */
  credentialVersion: string;
  signature: string;
  /** Until when the signature must be remembered to catch its replays. */
  signatureExpiresAt: Date;
}

export interface Admission {
  /** The key or its workspace changed since the credential was read: nothing was recorded, check again on a fresh read. */
  stale: boolean;
  /** The same signature was already seen inside the replay window. */
  replayed: boolean;
  /** Set when the key is over its rate limit: seconds until a request would pass. */
  retryAfterSeconds: number | null;
}

/**
 * Admits an authenticated request, across every api process: remembers its
 * signature (replay protection), takes a token from the key's rate-limit
 * bucket and notes when the key was last used.
 */
export interface RequestAdmission {
  admit(req: AdmissionRequest): Promise<Admission>;
  /** Forgets signatures that left the replay window. */
  purgeExpired(now: Date): Promise<number>;
}

/** The counters behind the lists' totals (ADR 0036): their deltas folded into one row per group. */
export interface ListCounters {
  fold(): Promise<number>;
}

/** Housekeeping of idempotency records past their 24 hours. */
export interface IdempotencyPurger {
  purgeExpired(now: Date): Promise<number>;
}

/** Authenticated encryption of secrets at rest (API key secrets, external refs). */
export interface SecretCipher {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
}

/** Sends operator notices and invitations by e-mail. */
export interface Mailer {
  /**
   * True when the mail went out (or was written where the sandbox keeps
   * mail); false when there is no way to send it (no mail server in
   * production). `confidential` mail (it holds a one-time link) is never
   * written to a log.
   */
  send(mail: { to: string; subject: string; text: string; confidential?: boolean }): Promise<boolean>;
}

export interface RequestSigner {
  /** Lowercase hex HMAC-SHA256 of `message` under `secret`. */
  sign(secret: string, message: string): string;
  /** Constant-time comparison of two hex signatures. */
  equals(a: string, b: string): boolean;
}

export interface RandomSource {
  uuid(): string;
  /** URL-safe random token of `bytes` bytes of entropy. */
  token(bytes: number): string;
}

export interface NetworkConfig {
  network: Network;
  base: BaseChain;
  requiredConfirmations: number;
  /** A node is configured (or it is a testnet of the local sandbox): it can be enabled. */
  configured: boolean;
  /** Open for new wallets and withdrawals: configured and not switched off by the operator. */
  enabled: boolean;
  assets: { asset: Asset; decimals: number; chainDecimals: number; contractAddress: string | null }[];
}

/** The networks this deployment knows, with their assets and settings, operator switches applied. */
export interface NetworkRegistry {
  list(): Promise<NetworkConfig[]>;
  get(network: Network): Promise<NetworkConfig>;
}
