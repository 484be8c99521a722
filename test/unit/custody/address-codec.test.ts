import { createHash } from 'node:crypto';
import { createBase58check } from '@scure/base';
import { TronWeb } from 'tronweb';
import { describe, expect, it } from 'vitest';
import {
  ChainAddressCodec,
  evmBytesFromTronAddress,
  tronAddressFromEvmBytes,
} from '../../../src/adapters/chains/address-codec.js';

// Published contract addresses: Tether USD on Ethereum, BSC and TRON, USD Coin on Ethereum.
const USDT_ETH = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const USDC_ETH = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const USDT_BSC = '0x55d398326f99059fF775485246999027B3197955';
const USDT_TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDT_TRON_HEX = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c';

const codec = new ChainAddressCodec();

/** Flips the case of the first letter after `0x`: same bytes, broken EIP-55 checksum. */
const flipFirstLetter = (address: string): string => {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  const c = address[i]!;
  return address.slice(0, i) + (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) + address.slice(i + 1);
};

/** Replaces the character at `i` by another base58 character. */
const changeAt = (address: string, i: number): string => {
  const c = address[i]!;
  return address.slice(0, i) + (c === 'a' ? 'b' : 'a') + address.slice(i + 1);
};

describe('ChainAddressCodec on ETH and BSC', () => {
  it('accepts EIP-55 addresses and returns them unchanged', () => {
    for (const chain of ['ETH', 'BSC'] as const) {
      for (const address of [USDT_ETH, USDC_ETH, USDT_BSC]) expect(codec.normalize(chain, address)).toBe(address);
    }
  });

  it('refuses unchecksummed all-lowercase and all-uppercase hex', () => {
    for (const chain of ['ETH', 'BSC'] as const) {
      expect(codec.normalize(chain, USDT_ETH.toLowerCase())).toBeNull();
      expect(codec.normalize(chain, `0x${USDT_ETH.slice(2).toUpperCase()}`)).toBeNull();
    }
  });

  it('refuses one character of flipped case (a wrong checksum)', () => {
    for (const address of [USDT_ETH, USDC_ETH, USDT_BSC]) {
      const typo = flipFirstLetter(address);
      expect(typo.toLowerCase()).toBe(address.toLowerCase());
      expect(codec.normalize('ETH', typo)).toBeNull();
    }
  });

  it('refuses 39 or 41 hex digits, a missing 0x, non-hex and surrounding whitespace', () => {
    expect(codec.normalize('ETH', USDT_ETH.slice(0, -1))).toBeNull();
    expect(codec.normalize('ETH', `${USDT_ETH}7`)).toBeNull();
    expect(codec.normalize('ETH', USDT_ETH.slice(2))).toBeNull();
    expect(codec.normalize('ETH', `0X${USDT_ETH.slice(2)}`)).toBeNull();
    expect(codec.normalize('ETH', `${USDT_ETH.slice(0, -1)}g`)).toBeNull();
    expect(codec.normalize('ETH', ` ${USDT_ETH}`)).toBeNull();
    expect(codec.normalize('ETH', `${USDT_ETH}\n`)).toBeNull();
    expect(codec.normalize('ETH', '')).toBeNull();
  });

  it('refuses a TRON address, in base58 or hex', () => {
    for (const chain of ['ETH', 'BSC'] as const) {
      expect(codec.normalize(chain, USDT_TRON)).toBeNull();
      expect(codec.normalize(chain, USDT_TRON_HEX)).toBeNull();
      expect(codec.normalize(chain, `0x${USDT_TRON_HEX}`)).toBeNull();
    }
  });
});

describe('ChainAddressCodec on TRON', () => {
  it('accepts a base58check address and returns it unchanged', () => {
    expect(codec.normalize('TRON', USDT_TRON)).toBe(USDT_TRON);
    expect(codec.normalize('TRON', 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH')).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  });

  it('refuses any single changed character (a wrong checksum)', () => {
    for (const i of [1, 10, 20, 33]) {
      const typo = changeAt(USDT_TRON, i);
      expect(typo).toHaveLength(34);
      expect(codec.normalize('TRON', typo)).toBeNull();
    }
  });

  it('refuses 33 or 35 characters', () => {
    expect(codec.normalize('TRON', USDT_TRON.slice(0, -1))).toBeNull();
    expect(codec.normalize('TRON', `${USDT_TRON}1`)).toBeNull();
    expect(codec.normalize('TRON', `T${USDT_TRON.slice(2)}`)).toBeNull();
  });

  it('refuses the hex forms that tronweb itself would accept', () => {
    expect(TronWeb.isAddress(USDT_TRON_HEX)).toBe(true); // so tronweb's check is not strict enough here
    expect(codec.normalize('TRON', USDT_TRON_HEX)).toBeNull();
    expect(codec.normalize('TRON', `0x${USDT_TRON_HEX}`)).toBeNull();
    expect(codec.normalize('TRON', `0x${USDT_TRON_HEX.slice(2)}`)).toBeNull();
  });

  it('refuses an EVM address, the empty string and surrounding whitespace', () => {
    expect(codec.normalize('TRON', USDT_ETH)).toBeNull();
    expect(codec.normalize('TRON', USDT_ETH.toLowerCase())).toBeNull();
    expect(codec.normalize('TRON', '')).toBeNull();
    expect(codec.normalize('TRON', ` ${USDT_TRON}`)).toBeNull();
    expect(codec.normalize('TRON', `${USDT_TRON} `)).toBeNull();
    expect(codec.normalize('TRON', `${USDT_TRON}\n`)).toBeNull();
  });

  it('refuses a valid base58check payload that is not a 0x41-prefixed account', () => {
    const b58check = createBase58check((d: Uint8Array) => createHash('sha256').update(d).digest());
    const id = Buffer.from(USDT_TRON_HEX.slice(2), 'hex');
    expect(b58check.encode(Uint8Array.from([0x41, ...id]))).toBe(USDT_TRON);
    for (const prefix of [0x40, 0x42]) {
      const other = b58check.encode(Uint8Array.from([prefix, ...id]));
      expect(other).toMatch(/^T.{33}$/); // looks like a TRON address, but is not one
      expect(codec.normalize('TRON', other)).toBeNull();
      expect(evmBytesFromTronAddress(other)).toBeNull();
    }
    expect(codec.normalize('TRON', b58check.encode(Uint8Array.from([0x41, ...id, 0])))).toBeNull();
    expect(codec.normalize('TRON', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBeNull(); // Bitcoin's genesis address
  });
});

describe('TRON ↔ EVM account id helpers', () => {
  it('map the 41-prefixed hex of tronweb to the same base58 address and back', () => {
    const bytes = Uint8Array.from(Buffer.from(USDT_TRON_HEX.slice(2), 'hex'));
    expect(tronAddressFromEvmBytes(bytes)).toBe(USDT_TRON);
    expect(TronWeb.address.fromHex(USDT_TRON_HEX)).toBe(USDT_TRON);
    expect(Buffer.from(evmBytesFromTronAddress(USDT_TRON)!).toString('hex')).toBe(USDT_TRON_HEX.slice(2));
    expect(evmBytesFromTronAddress(changeAt(USDT_TRON, 5))).toBeNull();
  });

  it('refuses anything but 20 bytes', () => {
    expect(() => tronAddressFromEvmBytes(new Uint8Array(21))).toThrow(/20 bytes/);
  });

  it('gives one account id for a key in every chain’s spelling, and spells it back canonically', () => {
    const id = USDT_TRON_HEX.slice(2).toLowerCase();
    expect(codec.accountId('TRON', USDT_TRON)).toBe(id);
    const evm = codec.fromAccountId('ETH', id);
    expect(codec.normalize('ETH', evm)).toBe(evm); // EIP-55
    expect(codec.accountId('BSC', evm)).toBe(id);
    expect(codec.accountId('ETH', evm.toLowerCase())).toBe(id);
    expect(codec.fromAccountId('TRON', id)).toBe(USDT_TRON);
    expect(codec.accountId('TRON', changeAt(USDT_TRON, 5))).toBeNull();
    expect(codec.accountId('ETH', '0x1234')).toBeNull();
    expect(() => codec.fromAccountId('ETH', 'XYZ')).toThrow(/40 lowercase hex/);
  });
});
