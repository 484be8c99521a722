// Custody's ports: the keys (the signer, address formats, account xpubs and
// their store, public derivation) and what the custody use cases need from
// storage (issue 31): the operator's treasury policies and their history.
import type { Asset, BaseChain, Network } from '../money/networks.js';
import type { TreasuryPolicy } from './treasury-policy.js';
import type { DerivationPath } from './derivation.js';
import type { DigestSignature } from '../transfers/ports.js';

/** One change of a treasury policy, kept for good (who asked is the operator's shell: the CLI). */
export interface TreasuryPolicyEvent {
  network: Network;
  asset: Asset;
  kind: 'LIMITS_SET' | 'COLD_ADDRESS_REQUESTED' | 'COLD_ADDRESS_CANCELLED' | 'COLD_ADDRESS_IN_FORCE';
  detail: Record<string, string | number | null>;
  at: Date;
}

export interface TreasuryRepo {
  /** Every policy, as stored (a pending change may be due: see inForce). */
  policies(): Promise<TreasuryPolicy[]>;
  /** One policy, its row locked until the transaction ends. */
  policyForUpdate(network: Network, asset: Asset): Promise<TreasuryPolicy | null>;
  savePolicy(policy: TreasuryPolicy): Promise<void>;
  record(event: TreasuryPolicyEvent): Promise<void>;
  history(network: Network, asset: Asset, limit: number): Promise<TreasuryPolicyEvent[]>;
  /** The next block to read for refills on the network, its row locked; null before the first read. */
  refillCursorForUpdate(network: Network): Promise<bigint | null>;
  setRefillCursor(network: Network, next: bigint, at: Date): Promise<void>;
}

/**
 * Custody of keys (docs/operations.md#custody-and-address-derivation). The
 * local adapter derives from a BIP-39 seed held in memory; a KMS/HSM adapter
 * can replace it. No private key ever leaves it.
 */
export interface SignerPort {
  /** The public address at `path`, in the chain's canonical format. */
  deriveAddress(chain: BaseChain, path: DerivationPath): Promise<string>;
  /**
   * Signs a 32-byte digest (a transaction's hash: keccak256 on EVM, the txID
   * on TRON) with the key at `path`. The key is derived, used and wiped
   * inside the signer; only the signature leaves it.
   */
  signDigest(chain: BaseChain, path: DerivationPath, digest: Uint8Array): Promise<DigestSignature>;
}

/** Address formats of the chains: EIP-55 hex for ETH and BSC, base58check (0x41) for TRON. */
export interface AddressCodec {
  /** The canonical form of `address` on `chain`, or null when it is not a valid address there. */
  normalize(chain: BaseChain, address: string): string | null;
  /** Like normalize, but hex in any case is accepted and checksummed (lookups, never a withdrawal destination). */
  canonicalize(chain: BaseChain, address: string): string | null;
  /**
   * The 20-byte account id behind a canonical address of `chain`, as 40 lowercase hex digits: one key
   * has the same account id on ETH, BSC and TRON, whatever the address's spelling.
   */
  accountId(chain: BaseChain, address: string): string | null;
  /** The canonical address on `chain` of a 40-hex-digit account id. */
  fromAccountId(chain: BaseChain, accountId: string): string;
}

/** 60 (ETH and BSC) or 195 (TRON). */
type CoinType = DerivationPath['coinType'];

/**
 * Account-level public keys (xpubs) from whoever holds the seed: the
 * chain-worker's signer, or a KMS/HSM that can export them (ADR 0026). An
 * xpub lets its holder derive the addresses of one account branch, never a
 * private key.
 */
export interface AccountKeyExporter {
  /** The xpub of m/44'/coin'/account'/change. */
  accountXpub(coinType: CoinType, account: number, change: 0 | 1): Promise<string>;
}

/**
 * Addresses derived publicly, in processes that hold no seed (the api): from
 * the account xpubs the chain-worker records ahead of the account sequence
 * (ADR 0026), or from the seed when this process happens to hold one.
 */
export interface AddressDeriver {
  /**
   * The address at `path`, or null when its account's xpub is not recorded
   * yet and no seed is at hand; the adapter then asks the chain-worker for a
   * refill itself, outside any transaction (the caller's rolls back).
   */
  deriveAddress(chain: BaseChain, path: DerivationPath): Promise<string | null>;
  /** True when fewer than the pool's low-water mark of accounts ahead of the sequence have recorded xpubs for `chain`'s coin type. */
  poolLow(chain: BaseChain): Promise<boolean>;
}

/**
 * The recorded account xpubs (table hd_account_keys) and what the pool needs.
 * Writes are idempotent: a key already recorded is kept as it is.
 */
export interface AccountKeyStore {
  /** The xpub of (coin, account, change), or null. */
  find(coinType: CoinType, account: number, change: 0 | 1): Promise<string | null>;
  /** The last account number the sequence handed out (0 before the first). */
  lastAllocatedAccount(): Promise<number>;
  /** How many change-0 xpubs of the coin are recorded for accounts above `account`. */
  countAbove(coinType: CoinType, account: number): Promise<number>;
  /**
   * The (account, change) pairs of the coin that need an xpub and lack one:
   * every allocated account of the coin's networks, the accounts
   * (lastAllocated, upTo], and the service branch (0, 1).
   */
  missing(coinType: CoinType, upTo: number): Promise<{ account: number; change: 0 | 1 }[]>;
  add(keys: { coinType: CoinType; account: number; change: 0 | 1; xpub: string }[]): Promise<number>;
}
