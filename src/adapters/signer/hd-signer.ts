// The local SignerPort adapter (docs/operations.md#custody-and-address-derivation):
// every key of the deployment is derived from one BIP-39 mnemonic held in
// memory. Deposit addresses come from public-only account nodes cached per
// (coin, account, change), so creating many wallets of one account costs one
// non-hardened step each. No private key, seed or mnemonic leaves this object:
// all are in #private fields, and the object prints as
// `LocalHdSigner { [redacted] }` in JSON and util.inspect.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { HDKey, HARDENED_OFFSET } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { coinTypeOf, MAX_INDEX, type CoinType, type DerivationPath } from '../../domain/custody/derivation.js';
import type { BaseChain } from '../../domain/money/networks.js';
import type { SignerPort } from '../../domain/custody/ports.js';
import type { DigestSignature } from '../../domain/transfers/ports.js';
import { addressOfPublicKey } from './public-address.js';

const BIP44_PURPOSE = 44;
const REDACTED = 'LocalHdSigner { [redacted] }';

export interface LocalHdSignerOptions {
  /**
   * How many account nodes (one per coin, account and change branch) stay
   * cached, least recently used evicted first. 0 derives every address from
   * the root (only useful to measure what the cache saves).
   */
  accountCacheSize?: number;
}


const checkIndex = (value: number, what: string): void => {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_INDEX) {
    throw new RangeError(`derivation ${what} must be an integer from 0 to ${MAX_INDEX}, got ${value}`);
  }
};

export class LocalHdSigner implements SignerPort {
  /** The validated sentence until the root is first needed, then undefined (the root is derived once). */
  #sentence: string | undefined;
  #rootNode: HDKey | undefined;
  /** m/44'/coin' per coin type: private nodes, needed for the hardened account step. */
  readonly #coinNodes = new Map<number, HDKey>();
  /** m/44'/coin'/account'/change, public only; a Map iterates in insertion order, which makes it an LRU. */
  readonly #accountNodes = new Map<string, HDKey>();
  readonly #accountCacheSize: number;

  /** Throws when `mnemonic` is not a valid English BIP-39 mnemonic; the message never repeats it. */
  constructor(mnemonic: string, options: LocalHdSignerOptions = {}) {
    // Whitespace is not part of a BIP-39 sentence (a trailing newline from a file, doubled spaces).
    const sentence = typeof mnemonic === 'string' ? mnemonic.trim().split(/\s+/).join(' ') : '';
    let valid: boolean;
    try {
      valid = validateMnemonic(sentence, wordlist);
    } catch {
      valid = false; // whatever the library says may quote the input
    }
    if (!valid) throw new Error('LocalHdSigner: the master seed is not a valid English BIP-39 mnemonic');
    // The root (PBKDF2-SHA512, 2048 rounds, and the curve's tables: about 0.1 s) is derived at its first use, once
    // per process: an ops command that derives and signs nothing starts without it.
    this.#sentence = sentence;
    const size = options.accountCacheSize ?? 10_000;
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError('accountCacheSize must be a non-negative integer');
    this.#accountCacheSize = size;
  }

  get #root(): HDKey {
    if (!this.#rootNode) {
      const seed = mnemonicToSeedSync(this.#sentence!);
      this.#rootNode = HDKey.fromMasterSeed(seed);
      seed.fill(0);
      this.#sentence = undefined;
    }
    return this.#rootNode;
  }

  async deriveAddress(chain: BaseChain, path: DerivationPath): Promise<string> {
    if (path.coinType !== coinTypeOf(chain)) {
      throw new Error(`coin type ${path.coinType} is not the one of ${chain} (${coinTypeOf(chain)})`);
    }
    checkIndex(path.index, 'index');
    return addressOfPublicKey(chain, this.#publicKeyAt(path));
  }

  /** How many account nodes are cached (for tests and metrics; says nothing secret). */
  get cachedAccounts(): number {
    return this.#accountNodes.size;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return REDACTED;
  }

  async signDigest(chain: BaseChain, path: DerivationPath, digest: Uint8Array): Promise<DigestSignature> {
    if (path.coinType !== coinTypeOf(chain)) {
      throw new Error(`coin type ${path.coinType} is not the one of ${chain} (${coinTypeOf(chain)})`);
    }
    if (!(digest instanceof Uint8Array) || digest.length !== 32) throw new Error('signDigest: the digest must be 32 bytes');
    checkIndex(path.index, 'index');
    checkIndex(path.account, 'account');
    // The private key of the path, derived from the coin's node (kept as addresses are derived: m/44'/coin' is no
    // more than the root it comes from), used once and wiped with the nodes below the coin's.
    const coin = this.#coinNode(path.coinType);
    const account = coin.deriveChild(HARDENED_OFFSET + path.account);
    if (!this.#coinNodes.has(path.coinType)) coin.wipePrivateData();
    const change = account.deriveChild(path.change);
    const leaf = change.deriveChild(path.index);
    for (const n of [account, change]) n.wipePrivateData();
    const key = leaf.privateKey;
    if (!key) throw new Error('derived node has no private key');
    try {
      const signature = secp256k1.Signature.fromBytes(secp256k1.sign(digest, key, { prehash: false, format: 'recovered' }), 'recovered');
      return { r: signature.r, s: signature.s, recovery: signature.recovery === 1 ? 1 : 0 };
    } finally {
      leaf.wipePrivateData();
    }
  }

  #publicKeyAt(path: DerivationPath): Uint8Array {
    const key = this.#accountNode(path).deriveChild(path.index).publicKey;
    if (!key) throw new Error('derived node has no public key');
    return key;
  }

  #accountNode(path: DerivationPath): HDKey {
    checkIndex(path.account, 'account');
    if (path.change !== 0 && path.change !== 1) throw new RangeError(`derivation change must be 0 or 1, got ${String(path.change)}`);
    const cacheKey = `${path.coinType}/${path.account}/${path.change}`;
    const cached = this.#accountNodes.get(cacheKey);
    if (cached) {
      this.#accountNodes.delete(cacheKey); // move to the most recently used end
      this.#accountNodes.set(cacheKey, cached);
      return cached;
    }
    const node = this.#deriveAccountNode(path);
    if (this.#accountCacheSize > 0) {
      this.#accountNodes.set(cacheKey, node);
      if (this.#accountNodes.size > this.#accountCacheSize) {
        const oldest = this.#accountNodes.keys().next().value;
        if (oldest !== undefined) this.#accountNodes.delete(oldest);
      }
    }
    return node;
  }

  /** m/44'/coin'/account'/change as a public-only node: the cache never holds a private key. */
  #deriveAccountNode(path: DerivationPath): HDKey {
    const coin = this.#coinNode(path.coinType);
    const account = coin.deriveChild(HARDENED_OFFSET + path.account);
    if (!this.#coinNodes.has(path.coinType)) coin.wipePrivateData();
    const change = account.deriveChild(path.change);
    account.wipePrivateData();
    const { chainCode, publicKey } = change;
    if (!chainCode || !publicKey) throw new Error('derived node has no public key');
    const publicOnly = new HDKey({
      versions: change.versions,
      depth: change.depth,
      index: change.index,
      parentFingerprint: change.parentFingerprint,
      chainCode,
      publicKey,
    });
    change.wipePrivateData();
    return publicOnly;
  }

  #coinNode(coinType: number): HDKey {
    const cached = this.#accountCacheSize > 0 ? this.#coinNodes.get(coinType) : undefined;
    if (cached) return cached;
    const purpose = this.#root.deriveChild(HARDENED_OFFSET + BIP44_PURPOSE);
    const coin = purpose.deriveChild(HARDENED_OFFSET + coinType);
    purpose.wipePrivateData();
    if (this.#accountCacheSize > 0) this.#coinNodes.set(coinType, coin);
    return coin;
  }

  /**
   * The xpub of m/44'/coin'/account'/change (AccountKeyExporter, ADR 0026):
   * serialised from the cached public-only node, so it can never be an xprv.
   */
  async accountXpub(coinType: CoinType, account: number, change: 0 | 1): Promise<string> {
    if (coinType !== 60 && coinType !== 195) throw new RangeError(`unknown coin type ${String(coinType)}`);
    const node = this.#accountNode({ coinType, account, change, index: 0 });
    if (node.privateKey) throw new Error('an account node held a private key'); // never: #deriveAccountNode builds it public-only
    return node.publicExtendedKey;
  }
}
