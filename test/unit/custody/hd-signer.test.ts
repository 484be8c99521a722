import { inspect } from 'node:util';
import { TronWeb } from 'tronweb';
import { mnemonicToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ChainAddressCodec } from '../../../src/adapters/chains/address-codec.js';
import { LocalHdSigner } from '../../../src/adapters/signer/hd-signer.js';
import { depositPath, formatPath, MAX_INDEX, servicePath } from '../../../src/domain/custody/derivation.js';
import { NETWORKS, baseChainOf } from '../../../src/domain/money/networks.js';

// Public vectors (BIP-39 test mnemonic; Hardhat/anvil's default mnemonic).
const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const JUNK = 'test test test test test test test test test test test junk';

const abandon = new LocalHdSigner(ABANDON);
const codec = new ChainAddressCodec();

describe('LocalHdSigner: published vectors', () => {
  it("derives m/44'/60'/0'/0/0 of the abandon mnemonic on ETH", async () => {
    await expect(abandon.deriveAddress('ETH', depositPath('ETH', 0, 0))).resolves.toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it("derives m/44'/195'/0'/0/0 of the abandon mnemonic on TRON", async () => {
    await expect(abandon.deriveAddress('TRON', depositPath('TRON', 0, 0))).resolves.toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  });

  it("derives anvil's first two accounts from the test…junk mnemonic", async () => {
    const junk = new LocalHdSigner(JUNK);
    await expect(junk.deriveAddress('ETH', depositPath('ETH', 0, 0))).resolves.toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    await expect(junk.deriveAddress('ETH', depositPath('ETH', 0, 1))).resolves.toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
  });

  it('gives BSC the same hex address as ETH for the same path', async () => {
    for (const [account, index] of [[0, 0], [3, 17], [42, 1000]] as const) {
      expect(await abandon.deriveAddress('BSC', depositPath('BSC', account, index))).toBe(
        await abandon.deriveAddress('ETH', depositPath('ETH', account, index)),
      );
    }
  });
});

describe('LocalHdSigner: independent re-derivation', () => {
  const pairs = [[0, 0], [0, 1], [1, 0], [1, 7], [5, 123], [250, 99_999]] as const;

  it("matches viem's mnemonicToAccount on ETH", async () => {
    for (const [accountIndex, addressIndex] of pairs) {
      const expected = mnemonicToAccount(ABANDON, { accountIndex, addressIndex }).address;
      expect(await abandon.deriveAddress('ETH', depositPath('ETH', accountIndex, addressIndex))).toBe(expected);
    }
  });

  it("matches tronweb's fromMnemonic (ethers HD wallet) on TRON", async () => {
    for (const [account, index] of pairs) {
      const path = depositPath('TRON', account, index);
      const expected = TronWeb.fromMnemonic(ABANDON, formatPath(path)).address;
      const derived = await abandon.deriveAddress('TRON', path);
      expect(derived).toBe(expected);
      expect(codec.normalize('TRON', derived)).toBe(derived);
    }
  });

  it('derives the service addresses on the change branch 1, apart from every deposit address', async () => {
    const treasury = await abandon.deriveAddress('ETH', servicePath('ETH_MAINNET', 'treasury'));
    const gasTank = await abandon.deriveAddress('ETH', servicePath('ETH_MAINNET', 'gasTank'));
    expect(treasury).toBe(mnemonicToAccount(ABANDON, { path: "m/44'/60'/0'/1/50" }).address);
    expect(gasTank).toBe(mnemonicToAccount(ABANDON, { path: "m/44'/60'/0'/1/51" }).address);
    expect(treasury).not.toBe(await abandon.deriveAddress('ETH', depositPath('ETH', 0, 50)));
    expect(new Set([treasury, gasTank, await abandon.deriveAddress('ETH', servicePath('ETH_MAINNET', 'faucet'))]).size).toBe(3);
    const tronTreasury = await abandon.deriveAddress('TRON', servicePath('TRON_MAINNET', 'treasury'));
    expect(tronTreasury).toBe(TronWeb.fromMnemonic(ABANDON, "m/44'/195'/0'/1/10").address);
    expect(tronTreasury).not.toBe(await abandon.deriveAddress('TRON', depositPath('TRON', 0, 10)));
  });

  it('gives each network its own treasury, gas tank and faucet dispenser, none on the old shared indexes 0 to 9', async () => {
    const all = await Promise.all(
      NETWORKS.flatMap((n) => (['treasury', 'gasTank', 'faucet'] as const).map((r) => abandon.deriveAddress(baseChainOf(n), servicePath(n, r)))),
    );
    expect(new Set(all.map((a) => a.toLowerCase())).size).toBe(18);
    for (const n of NETWORKS) for (const r of ['treasury', 'gasTank', 'faucet'] as const) expect(servicePath(n, r).index).toBeGreaterThanOrEqual(10);
    expect(formatPath(servicePath('ETH_TESTNET', 'treasury'))).toBe("m/44'/60'/0'/1/60");
    expect(formatPath(servicePath('BSC_TESTNET', 'faucet'))).toBe("m/44'/60'/0'/1/42");
  });

  it('gives every chain a valid address in its own format', async () => {
    for (const chain of ['ETH', 'BSC', 'TRON'] as const) {
      const address = await abandon.deriveAddress(chain, depositPath(chain, 9, 9));
      expect(codec.normalize(chain, address)).toBe(address);
    }
  });
});

describe('LocalHdSigner: account cache', () => {
  it('keeps one account node for many addresses of one account', async () => {
    const signer = new LocalHdSigner(ABANDON);
    for (let i = 0; i < 50; i++) await signer.deriveAddress('ETH', depositPath('ETH', 7, i));
    expect(signer.cachedAccounts).toBe(1);
    await signer.deriveAddress('TRON', depositPath('TRON', 7, 0));
    await signer.deriveAddress('ETH', servicePath('ETH_TESTNET', 'treasury'));
    expect(signer.cachedAccounts).toBe(3);
  });

  it('evicts the least recently used account beyond its bound and re-derives it identically', async () => {
    const signer = new LocalHdSigner(ABANDON, { accountCacheSize: 2 });
    const first = await signer.deriveAddress('ETH', depositPath('ETH', 1, 5));
    await signer.deriveAddress('ETH', depositPath('ETH', 2, 5));
    await signer.deriveAddress('ETH', depositPath('ETH', 1, 6)); // account 1 is now the most recent
    await signer.deriveAddress('ETH', depositPath('ETH', 3, 5)); // evicts account 2
    expect(signer.cachedAccounts).toBe(2);
    expect(await signer.deriveAddress('ETH', depositPath('ETH', 1, 5))).toBe(first);
    expect(first).toBe(await abandon.deriveAddress('ETH', depositPath('ETH', 1, 5)));
  });

  it('derives the same addresses with the cache turned off', async () => {
    const uncached = new LocalHdSigner(ABANDON, { accountCacheSize: 0 });
    for (const chain of ['ETH', 'TRON'] as const) {
      const path = depositPath(chain, 4, 2);
      expect(await uncached.deriveAddress(chain, path)).toBe(await abandon.deriveAddress(chain, path));
    }
    expect(uncached.cachedAccounts).toBe(0);
  });
});

describe('LocalHdSigner: paths it refuses', () => {
  it('refuses an index or account outside 0..2^31-1, where it would turn hardened or wrap', async () => {
    for (const bad of [-1, MAX_INDEX + 1, 1.5, Number.NaN]) {
      await expect(abandon.deriveAddress('ETH', depositPath('ETH', 1, bad))).rejects.toThrow(RangeError);
      await expect(abandon.deriveAddress('ETH', depositPath('ETH', bad, 0))).rejects.toThrow(RangeError);
    }
    await expect(abandon.deriveAddress('ETH', depositPath('ETH', MAX_INDEX, MAX_INDEX))).resolves.toMatch(/^0x/);
  });

  it("refuses a path whose coin type is not the chain's", async () => {
    await expect(abandon.deriveAddress('TRON', depositPath('ETH', 0, 0))).rejects.toThrow(/coin type 60/);
    await expect(abandon.deriveAddress('BSC', depositPath('TRON', 0, 0))).rejects.toThrow(/coin type 195/);
  });
});

describe('LocalHdSigner: secrets stay inside', () => {
  const wordRuns = (mnemonic: string): string[] => {
    const words = mnemonic.split(' ');
    return words.slice(0, -1).map((w, i) => `${w} ${words[i + 1]}`);
  };

  it('shows nothing of the mnemonic or an extended private key in JSON or util.inspect', async () => {
    const secret = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
    const signer = new LocalHdSigner(secret);
    await signer.deriveAddress('ETH', depositPath('ETH', 1, 1)); // fill the caches first
    const renderings = [
      JSON.stringify(signer),
      JSON.stringify({ nested: { signer } }),
      inspect(signer),
      inspect(signer, { showHidden: true, depth: Infinity }),
      inspect(signer, { showHidden: true, depth: Infinity, customInspect: false }),
      String(signer),
    ];
    for (const text of renderings) {
      expect(text).not.toMatch(/xprv|xpub|privateKey|seed/i);
      for (const run of wordRuns(secret)) expect(text).not.toContain(run);
    }
    expect(inspect(signer)).toBe('LocalHdSigner { [redacted] }');
    expect(Object.keys(signer)).toEqual([]);
  });

  it('rejects an invalid mnemonic without repeating it in the error', () => {
    const badChecksum = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon';
    const unknownWord = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon zzzwrongword';
    const tooShort = 'abandon abandon abandon about';
    for (const bad of [badChecksum, unknownWord, tooShort, '']) {
      let message = '';
      expect(() => {
        try {
          new LocalHdSigner(bad);
        } catch (e) {
          message = `${(e as Error).message} ${(e as Error).stack ?? ''}`;
          throw e;
        }
      }).toThrow(/not a valid English BIP-39 mnemonic/);
      expect(message).not.toMatch(/abandon|about|zzzwrongword/);
    }
  });

  it('accepts the mnemonic with stray whitespace around and between words', async () => {
    const padded = new LocalHdSigner(`  ${ABANDON.replaceAll(' ', '  ')}\n`);
    await expect(padded.deriveAddress('ETH', depositPath('ETH', 0, 0))).resolves.toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });
});

describe('LocalHdSigner: signing', () => {
  const signer = new LocalHdSigner('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
  const digest = new Uint8Array(32).map((_, i) => i + 1);

  it('signs a digest with the key of the path: the signature recovers that path’s address, and no other', async () => {
    const { recoverAddress, numberToHex } = await import('viem');
    for (const [chain, path] of [
      ['ETH', depositPath('ETH', 3, 7)],
      ['ETH', servicePath('ETH_TESTNET', 'gasTank')],
    ] as const) {
      const sig = await signer.signDigest(chain, path, digest);
      const recovered = await recoverAddress({
        hash: numberToHex(BigInt(`0x${Buffer.from(digest).toString('hex')}`), { size: 32 }),
        signature: { r: numberToHex(sig.r, { size: 32 }), s: numberToHex(sig.s, { size: 32 }), yParity: sig.recovery },
      });
      expect(recovered).toBe(await signer.deriveAddress(chain, path));
      expect(recovered).not.toBe(await signer.deriveAddress(chain, depositPath('ETH', 3, 8)));
      // From the kept coin node or from the root (no cache), the same key: the same deterministic signature.
      expect(await new LocalHdSigner(ABANDON, { accountCacheSize: 0 }).signDigest(chain, path, digest)).toEqual(sig);
      expect(await signer.signDigest(chain, path, digest)).toEqual(sig);
    }
  });

  it('refuses a digest that is not 32 bytes and a path of another chain', async () => {
    await expect(signer.signDigest('ETH', depositPath('ETH', 1, 0), new Uint8Array(31))).rejects.toThrow(/32 bytes/);
    await expect(signer.signDigest('TRON', depositPath('ETH', 1, 0), digest)).rejects.toThrow(/coin type/);
  });
});
