// Why an address a person typed is refused, in words that say how to fix it
// (docs/api.md#addresses). The codec decides validity (checksums included);
// this only names the reason, from the address's shape: a hex address in one
// case carries no EIP-55 checksum, which is what catches a mistyped
// character, so the mixed-case form a wallet shows is asked for, never
// computed for the caller (that would bless a typo).
import type { BaseChain } from '../money/networks.js';

const EVM_SHAPE = /^0x[0-9a-fA-F]{40}$/;
const TRON_SHAPE = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

/** The reason an address the codec refused is not valid on `chain`. */
export function addressProblem(chain: BaseChain, address: string): string {
  if (chain === 'TRON') {
    return TRON_SHAPE.test(address)
      ? 'its base58check checksum does not match: a character is mistyped'
      : 'is not a TRON address (base58, 34 characters starting with T)';
  }
  if (!EVM_SHAPE.test(address)) return `is not a ${chain} address (0x and 40 hexadecimal digits, EIP-55 checksummed)`;
  const digits = address.slice(2);
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) {
    return 'has no EIP-55 checksum (it is all one case): give the checksummed, mixed-case form your wallet shows, whose checksum catches a mistyped character';
  }
  return 'does not match its EIP-55 checksum: a character is mistyped';
}
