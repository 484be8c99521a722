// Addresses whose funds nobody can ever move, the same 20 bytes on every
// chain here (TRON's base58 wraps them): what is sent there is lost, so no
// withdrawal (or cold address) may name one. The token contracts configured
// for a network are the other such addresses; the caller knows those.

/** EVM system contracts that hold no key and pass nothing on (the EIPs that deploy them). */
const SYSTEM_CONTRACTS: Readonly<Record<string, string>> = {
  '000f3df6d732807ef1319fb7b8bb8522d0beac02': 'the EIP-4788 beacon roots contract',
  '0000f90827f1c53a10cb7a02335b175320002935': 'the EIP-2935 block hashes contract',
  '00000961ef480eb55e80d19ad83579a64c007002': 'the EIP-7002 withdrawal requests contract',
  '0000bbddc7ce488642fb579f8b00f3a590007251': 'the EIP-7251 consolidation requests contract',
};

/**
 * Why what `accountId` (its 20 bytes as 40 lowercase hex digits) receives is
 * lost, or null. Precompiles (Ethereum's 0x…01 to 0x…11, BSC's and TRON's own
 * further up) and chain system contracts (BSC's at 0x…1000 to 0x…3000) all have
 * twelve leading zero bytes, which no key-held or deployed address has (it
 * would take 2^96 tries to find one).
 */
export function unmovableReason(accountId: string): string | null {
  const id = accountId.toLowerCase();
  if (/^0{40}$/.test(id)) return 'the zero address: what it receives is burnt';
  if (id.startsWith('0'.repeat(24))) return 'a precompiled or system address (twelve leading zero bytes): no one holds its key, what it receives cannot be moved';
  const system = SYSTEM_CONTRACTS[id];
  return system ? `${system}: what it receives cannot be moved` : null;
}
