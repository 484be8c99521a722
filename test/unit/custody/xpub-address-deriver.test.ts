import { HDKey } from '@scure/bip32';
import { describe, expect, it } from 'vitest';
import { LocalHdSigner } from '../../../src/adapters/signer/hd-signer.js';
import { XpubAddressDeriver } from '../../../src/adapters/signer/xpub-address-deriver.js';
import { depositPath, servicePath, type CoinType } from '../../../src/domain/custody/derivation.js';
import { NETWORKS, baseChainOf } from '../../../src/domain/money/networks.js';
import type { AccountKeyStore } from '../../../src/domain/custody/ports.js';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const signer = new LocalHdSigner(ABANDON);

/** hd_account_keys in memory. */
class MemoryKeys implements AccountKeyStore {
  readonly rows = new Map<string, string>();
  last = 0;
  async find(coinType: CoinType, account: number, change: 0 | 1) {
    return this.rows.get(`${coinType}/${account}/${change}`) ?? null;
  }
  async lastAllocatedAccount() {
    return this.last;
  }
  async countAbove(coinType: CoinType, account: number) {
    return [...this.rows.keys()].filter((k) => {
      const [c, a, ch] = k.split('/').map(Number);
      return c === coinType && ch === 0 && a! > account;
    }).length;
  }
  async missing(): Promise<{ account: number; change: 0 | 1 }[]> {
    return [];
  }
  async add(keys: { coinType: CoinType; account: number; change: 0 | 1; xpub: string }[]) {
    for (const k of keys) this.rows.set(`${k.coinType}/${k.account}/${k.change}`, k.xpub);
    return keys.length;
  }
  async record(coinType: CoinType, account: number, change: 0 | 1) {
    await this.add([{ coinType, account, change, xpub: await signer.accountXpub(coinType, account, change) }]);
  }
}

describe('LocalHdSigner.accountXpub', () => {
  it('exports the public extended key of the account branch, never a private one', async () => {
    const xpub = await signer.accountXpub(60, 7, 0);
    expect(xpub).toMatch(/^xpub/);
    const node = HDKey.fromExtendedKey(xpub);
    expect([node.privateKey, node.depth, node.index]).toEqual([null, 4, 0]);
    expect(await signer.accountXpub(60, 7, 1)).not.toBe(xpub);
    expect(await signer.accountXpub(195, 7, 0)).not.toBe(xpub);
  });
});

describe('XpubAddressDeriver', () => {
  it('derives, from recorded xpubs alone, the addresses the seed derives: deposit and service, on every chain', async () => {
    const keys = new MemoryKeys();
    for (const coin of [60, 195] as const) {
      await keys.record(coin, 0, 1);
      for (const account of [1, 2, 300]) await keys.record(coin, account, 0);
    }
    const deriver = new XpubAddressDeriver(keys, { requestRefill: async () => {} });
    for (const chain of ['ETH', 'BSC', 'TRON'] as const) {
      for (const account of [1, 2, 300]) {
        for (const index of [0, 1, 19, 2 ** 31 - 1]) {
          const path = depositPath(chain, account, index);
          expect(await deriver.deriveAddress(chain, path)).toBe(await signer.deriveAddress(chain, path));
        }
      }
    }
    for (const network of NETWORKS) {
      for (const role of ['treasury', 'gasTank', 'faucet'] as const) {
        const chain = baseChainOf(network);
        expect(await deriver.deriveAddress(chain, servicePath(network, role))).toBe(await signer.deriveAddress(chain, servicePath(network, role)));
      }
    }
  });

  it('answers null and asks for a refill when the xpub is missing and it holds no seed; derives from the seed when it holds one', async () => {
    const keys = new MemoryKeys();
    let refills = 0;
    const noSeed = new XpubAddressDeriver(keys, { requestRefill: async () => void refills++ });
    expect(await noSeed.deriveAddress('ETH', depositPath('ETH', 5, 0))).toBeNull();
    expect(refills).toBe(1);
    const withSeed = new XpubAddressDeriver(keys, { signer, requestRefill: async () => void refills++ });
    expect(await withSeed.deriveAddress('TRON', depositPath('TRON', 5, 3))).toBe(await signer.deriveAddress('TRON', depositPath('TRON', 5, 3)));
    expect(refills).toBe(1);
  });

  it('with the seed at hand, reads the table once for an account it lacks and derives the rest from that account node', async () => {
    const keys = new MemoryKeys();
    let finds = 0;
    const counted = Object.assign(Object.create(keys) as MemoryKeys, { find: (...a: Parameters<MemoryKeys['find']>) => (finds++, keys.find(...a)) });
    const deriver = new XpubAddressDeriver(counted, { signer, exporter: signer, requestRefill: async () => {} });
    for (let i = 0; i < 16; i++) expect(await deriver.deriveAddress('ETH', depositPath('ETH', 9, i))).toBe(await signer.deriveAddress('ETH', depositPath('ETH', 9, i)));
    expect(finds).toBe(1);
  });

  it('refuses an extended private key or a node of another depth found in the table', async () => {
    const keys = new MemoryKeys();
    const root = HDKey.fromMasterSeed(new Uint8Array(32).fill(7));
    await keys.add([{ coinType: 60, account: 1, change: 0, xpub: root.derive("m/44'/60'/1'/0").privateExtendedKey }]);
    await keys.add([{ coinType: 60, account: 2, change: 0, xpub: root.derive("m/44'/60'/2'").publicExtendedKey }]);
    const deriver = new XpubAddressDeriver(keys, { requestRefill: async () => {} });
    await expect(deriver.deriveAddress('ETH', depositPath('ETH', 1, 0))).rejects.toThrow(/malformed key for coin 60, account 1/);
    await expect(deriver.deriveAddress('ETH', depositPath('ETH', 2, 0))).rejects.toThrow(/malformed key for coin 60, account 2/);
  });

  it('says the pool is low when fewer than the low-water mark of accounts past the sequence have xpubs', async () => {
    const keys = new MemoryKeys();
    for (let a = 1; a <= 5; a++) await keys.record(60, a, 0);
    const deriver = new XpubAddressDeriver(keys, { requestRefill: async () => {}, lowWater: 3 });
    keys.last = 2; // 3, 4, 5 ahead
    expect(await deriver.poolLow('BSC')).toBe(false);
    expect(await deriver.poolLow('TRON')).toBe(true);
    keys.last = 3;
    expect(await deriver.poolLow('ETH')).toBe(true);
  });
});
