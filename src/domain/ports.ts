// The ports the domain and the use cases depend on. Adapters implement them;
// only the composition roots in src/bootstrap know which adapter is which.
import type { ApiKey } from './auth/api-key.js';
import type { IdempotencyRecord, IdempotencyScope } from './idempotency/idempotency.js';
import type { Page, PageRequest } from './pagination.js';
import type { NetworkSide } from './money/networks.js';
import type { JobName, JobPayloads } from './jobs/job-names.js';
import type { Network } from './money/networks.js';
import type { Workspace, WorkspaceStatus } from './workspaces/workspace.js';
import type { Asset, BaseChain } from './money/networks.js';

export interface Clock {
  now(): Date;
}

/** Enqueues jobs. Inside a unit of work the job commits or rolls back with it. */
export interface JobQueue {
  enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<void>;
}

export interface WorkspaceRepo {
  add(workspace: Workspace): Promise<void>;
  get(id: string): Promise<Workspace | null>;
  /** Sets the status; returns false when there is no such workspace. */
  setStatus(id: string, status: WorkspaceStatus, at: Date): Promise<boolean>;
}

export interface ApiKeyRepo {
  add(key: ApiKey): Promise<void>;
  findByKeyId(keyId: string): Promise<ApiKey | null>;
  /** Keys of the workspace on one side that are neither revoked nor expired at `now`, newest first. */
  listActive(workspaceId: string, side: NetworkSide, now: Date, page: PageRequest): Promise<Page<ApiKey>>;
  /** Revokes a non-revoked key of the workspace and side; false when there is none. */
  revoke(id: string, workspaceId: string, side: NetworkSide, at: Date): Promise<boolean>;
}

/**
 * Idempotency records, inside the unit of work of the operation they guard.
 * `tryLock` takes a lock held until the transaction ends; false means another
 * transaction holds it (the first request is still in flight).
 */
export interface IdempotencyStore {
  tryLock(scope: IdempotencyScope): Promise<boolean>;
  /** The record of this scope that has not expired at `now`. */
  find(scope: IdempotencyScope, now: Date): Promise<IdempotencyRecord | null>;
  /** Saves the record, replacing an expired one of the same scope. */
  save(record: IdempotencyRecord): Promise<void>;
}

/** What a unit of work hands to the use case: repositories and jobs bound to one transaction. */
export interface TxContext {
  workspaces: WorkspaceRepo;
  apiKeys: ApiKeyRepo;
  idempotency: IdempotencyStore;
  jobs: JobQueue;
}

/**
 * Runs `work` in one database transaction. State written through the context
 * and jobs enqueued through `ctx.jobs` commit together or not at all. Called
 * inside another unit of work, it runs as a nested transaction (savepoint) of it.
 */
export interface UnitOfWork {
  run<T>(work: (ctx: TxContext) => Promise<T>): Promise<T>;
}

/** Read side used on the authentication hot path (no transaction). */
export interface CredentialStore {
  /** The key with that key_id and the status of its workspace (null when the workspace is gone). */
  findCredential(keyId: string): Promise<{ key: ApiKey; workspace: Workspace | null } | null>;
}

export interface AdmissionRequest {
  apiKeyId: string;
  keyId: string;
  signature: string;
  /** Until when the signature must be remembered to catch its replays. */
  signatureExpiresAt: Date;
}

export interface Admission {
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

/** Housekeeping of idempotency records past their 24 hours. */
export interface IdempotencyPurger {
  purgeExpired(now: Date): Promise<number>;
}

/** Authenticated encryption of secrets at rest (API key secrets, external refs). */
export interface SecretCipher {
  encrypt(plaintext: string): string;
  decrypt(ciphertext: string): string;
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
  enabled: boolean;
  assets: { asset: Asset; decimals: number; chainDecimals: number; contractAddress: string | null }[];
}

/** The networks this deployment knows, with their assets and settings. */
export interface NetworkRegistry {
  list(): NetworkConfig[];
}
