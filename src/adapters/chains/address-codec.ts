// Address formats of the chains (issue 6, item 2): the one place that decides
// whether a string is an address of a chain, used wherever an address comes in
// (wallets now, withdrawal destinations later). ETH and BSC: EIP-55 checksummed
// hex. TRON: base58check of 0x41 ‖ the 20-byte account id (notes/chains.md).
import { createHash } from 'node:crypto';
import { createBase58check } from '@scure/base';
// ox (viem's own primitives) rather than viem's root: the same EIP-55 code without loading all of viem
// in every process that only spells addresses (a second of start-up for the api and each ops command).
import { checksum as checksumAddress } from 'ox/Address';
import { fromBytes as toHex } from 'ox/Hex';
import type { AddressCodec } from '../../domain/custody/ports.js';
import type { BaseChain } from '../../domain/money/networks.js';

const TRON_PREFIX = 0x41;
const EVM_ADDRESS_BYTES = 20;

const sha256 = (data: Uint8Array): Uint8Array => createHash('sha256').update(data).digest();
const base58check = createBase58check(sha256);

/** `0x` + 40 hex digits, any case; the checksum is checked separately. */
const EVM_HEX = /^0x[0-9a-fA-F]{40}$/;
/** 21 bytes starting with 0x41 always encode to 34 base58 characters starting with `T`. */
const TRON_BASE58 = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

/** The EIP-55 address of a 20-byte account id. */
export const evmAddressFromBytes = (bytes: Uint8Array): string => {
  if (bytes.length !== EVM_ADDRESS_BYTES) throw new Error(`an EVM address has 20 bytes, got ${bytes.length}`);
  return checksumAddress(toHex(bytes));
};

/** The TRON address (base58check of 0x41 ‖ bytes) of the same 20-byte account id. */
export const tronAddressFromEvmBytes = (bytes: Uint8Array): string => {
  if (bytes.length !== EVM_ADDRESS_BYTES) throw new Error(`an EVM address has 20 bytes, got ${bytes.length}`);
  const payload = new Uint8Array(1 + EVM_ADDRESS_BYTES);
  payload[0] = TRON_PREFIX;
  payload.set(bytes, 1);
  return base58check.encode(payload);
};

/** The 20-byte account id of a TRON base58 address, or null when it is not one. */
export const evmBytesFromTronAddress = (address: string): Uint8Array | null => {
  if (!TRON_BASE58.test(address)) return null;
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address); // throws on a wrong checksum
  } catch {
    return null;
  }
  if (payload.length !== 1 + EVM_ADDRESS_BYTES || payload[0] !== TRON_PREFIX) return null;
  return payload.slice(1);
};

const normalizeEvm = (address: string): string | null => {
  if (!EVM_HEX.test(address)) return null;
  // Only the exact EIP-55 form is accepted: docs/api.md#addresses asks for checksummed
  // hex, and the checksum is what catches a mistyped withdrawal destination.
  // All-lowercase or all-uppercase input carries no checksum, so it is refused
  // rather than silently upgraded.
  return checksumAddress(address) === address ? address : null;
};

const normalizeTron = (address: string): string | null => {
  const bytes = evmBytesFromTronAddress(address);
  // Re-encoding guards the canonical form (base58 has one spelling per payload).
  return bytes && tronAddressFromEvmBytes(bytes) === address ? address : null;
};

export class ChainAddressCodec implements AddressCodec {
  normalize(chain: BaseChain, address: string): string | null {
    if (typeof address !== 'string') return null;
    switch (chain) {
      case 'ETH':
      case 'BSC':
        return normalizeEvm(address);
      case 'TRON':
        return normalizeTron(address);
      default:
        return null;
    }
  }

  canonicalize(chain: BaseChain, address: string): string | null {
    if (typeof address !== 'string') return null;
    if (chain === 'TRON') return normalizeTron(address);
    return EVM_HEX.test(address) ? checksumAddress(address.toLowerCase()) : null;
  }

  accountId(chain: BaseChain, address: string): string | null {
    if (chain === 'TRON') {
      const bytes = evmBytesFromTronAddress(address);
      return bytes ? Buffer.from(bytes).toString('hex') : null;
    }
    return EVM_HEX.test(address) ? address.slice(2).toLowerCase() : null;
  }

  fromAccountId(chain: BaseChain, accountId: string): string {
    if (!/^[0-9a-f]{40}$/.test(accountId)) throw new Error('an account id is 40 lowercase hex digits');
    const bytes = Buffer.from(accountId, 'hex');
    return chain === 'TRON' ? tronAddressFromEvmBytes(bytes) : evmAddressFromBytes(bytes);
  }
}
