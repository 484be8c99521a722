// The TRON stand-in's address forms (ADR 0023): TRON hex (41…) is the same
// 20 bytes as the backing anvil's 0x… address; requests may name an address
// in hex or, with `visible`, in base58. Never on the production path.
import { utils as tronUtils } from 'tronweb';
import type { Hex } from 'viem';

export const strip0x = (h: string) => (h.startsWith('0x') ? h.slice(2) : h);
export const tronHex = (evm: string) => `41${strip0x(evm).toLowerCase()}`;
export const evmOf = (tron: string): Hex => `0x${tron.slice(2)}` as Hex;

/** A TRON hex address (41…) from the request's form: hex, or base58 when `visible`. */
export function requestAddress(value: unknown, visible: boolean): string | null {
  if (typeof value !== 'string') return null;
  if (visible || value.startsWith('T')) {
    try {
      const hex = tronUtils.address.toHex(value);
      return /^41[0-9a-f]{40}$/i.test(hex) ? hex.toLowerCase() : null;
    } catch {
      return null;
    }
  }
  return /^41[0-9a-fA-F]{40}$/.test(value) ? value.toLowerCase() : null;
}

/** An address as an answer shows it: base58 when the request was `visible`, hex otherwise. */
export const shownAddress = (hex: string, visible: boolean) => (visible ? tronUtils.address.fromHex(hex) : hex);
