// AddressDeriver from recorded account xpubs (ADR 0026): the api holds no seed,
// so a deposit address is one public, non-hardened step from the xpub of its
// account (m/44'/coin'/account'/change), which the chain-worker records in
// hd_account_keys ahead of the account sequence. When the xpub is missing,
// a process that holds the seed derives from it (from its account's public
// node, kept like a recorded xpub); one that does not answers null and asks
// the chain-worker for a refill.
import { HDKey } from '@scure/bip32';
import { ACCOUNT_KEY_POOL } from '../../domain/custody/account-key-pool.js';
import { coinTypeOf, MAX_INDEX, type DerivationPath } from '../../domain/custody/derivation.js';
import type { BaseChain } from '../../domain/money/networks.js';
import type { AccountKeyExporter, AccountKeyStore, AddressDeriver, SignerPort } from '../../domain/custody/ports.js';
import { addressOfPublicKey } from './public-address.js';

/** BIP-32 depth of m/44'/coin'/account'/change. */
const ACCOUNT_BRANCH_DEPTH = 4;

export interface XpubAddressDeriverOptions {
  /** The process's own signer when it holds the seed (the chain-worker, or an api given MASTER_SEED): derives what is not recorded. */
  signer?: SignerPort;
  /**
   * The same seed's account xpubs: an account not recorded yet is then derived from its public node, kept in
   * memory like a recorded one, instead of asking the table again for every address (a pool refill derives 16).
   */
  exporter?: AccountKeyExporter;
  /** Called (never awaited by the caller) when an xpub is missing and no seed is at hand. */
  requestRefill: () => Promise<void>;
  /** Parsed xpubs kept in memory, least recently used evicted first. */
  cacheSize?: number;
  lowWater?: number;
  onRefillError?: (err: unknown) => void;
}

export class XpubAddressDeriver implements AddressDeriver {
  readonly #nodes = new Map<string, HDKey>();
  readonly #cacheSize: number;
  readonly #lowWater: number;

  constructor(
    private readonly keys: AccountKeyStore,
    private readonly opts: XpubAddressDeriverOptions,
  ) {
    this.#cacheSize = opts.cacheSize ?? 10_000;
    this.#lowWater = opts.lowWater ?? ACCOUNT_KEY_POOL.lowWater;
  }

  async deriveAddress(chain: BaseChain, path: DerivationPath): Promise<string | null> {
    if (path.coinType !== coinTypeOf(chain)) {
      throw new Error(`coin type ${path.coinType} is not the one of ${chain} (${coinTypeOf(chain)})`);
    }
    if (!Number.isSafeInteger(path.index) || path.index < 0 || path.index > MAX_INDEX) {
      throw new RangeError(`derivation index must be an integer from 0 to ${MAX_INDEX}, got ${path.index}`);
    }
    const node = await this.#accountNode(path);
    if (!node) {
      if (this.opts.signer) return this.opts.signer.deriveAddress(chain, path);
      this.opts.requestRefill().catch((err: unknown) => this.opts.onRefillError?.(err));
      return null;
    }
    const key = node.deriveChild(path.index).publicKey;
    if (!key) throw new Error('derived node has no public key');
    return addressOfPublicKey(chain, key);
  }

  async poolLow(chain: BaseChain): Promise<boolean> {
    const last = await this.keys.lastAllocatedAccount();
    return (await this.keys.countAbove(coinTypeOf(chain), last)) < this.#lowWater;
  }

  async #accountNode(path: DerivationPath): Promise<HDKey | null> {
    const cacheKey = `${path.coinType}/${path.account}/${path.change}`;
    const cached = this.#nodes.get(cacheKey);
    if (cached) {
      this.#nodes.delete(cacheKey); // most recently used last
      this.#nodes.set(cacheKey, cached);
      return cached;
    }
    const xpub = (await this.keys.find(path.coinType, path.account, path.change)) ?? (await this.opts.exporter?.accountXpub(path.coinType, path.account, path.change)) ?? null;
    if (xpub === null) return null;
    const node = HDKey.fromExtendedKey(xpub);
    // The table holds public keys only; anything else there is a fault, never used.
    if (node.privateKey || node.depth !== ACCOUNT_BRANCH_DEPTH || node.index !== path.change) {
      throw new Error(`hd_account_keys holds a malformed key for coin ${path.coinType}, account ${path.account}, change ${path.change}`);
    }
    if (this.#cacheSize > 0) {
      this.#nodes.set(cacheKey, node);
      if (this.#nodes.size > this.#cacheSize) {
        const oldest = this.#nodes.keys().next().value;
        if (oldest !== undefined) this.#nodes.delete(oldest);
      }
    }
    return node;
  }
}
