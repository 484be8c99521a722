// The address of a secp256k1 public key: keccak-256 of the uncompressed point
// (without its 0x04 prefix), last 20 bytes, as EIP-55 hex on ETH and BSC or
// base58check with the 0x41 prefix on TRON. Public keys only: no secret here.
import { ECDH } from 'node:crypto';
import { keccak256 } from 'ox/Hash';
import type { BaseChain } from '../../domain/money/networks.js';
import { evmAddressFromBytes, tronAddressFromEvmBytes } from '../chains/address-codec.js';

export function addressOfPublicKey(chain: BaseChain, compressedPublicKey: Uint8Array): string {
  const uncompressed = ECDH.convertKey(compressedPublicKey, 'secp256k1', undefined, undefined, 'uncompressed') as Buffer;
  const id = keccak256(uncompressed.subarray(1), { as: 'Bytes' }).subarray(12);
  return chain === 'TRON' ? tronAddressFromEvmBytes(id) : evmAddressFromBytes(id);
}
