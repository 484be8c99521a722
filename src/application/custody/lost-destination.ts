// Where money sent is lost for good, for every input that names a
// destination (a withdrawal, a cold address): the zero address, precompiles
// and system contracts (src/domain/custody/unmovable-addresses.ts), and the
// token contracts configured on any network, in any chain's spelling.
import { unmovableReason } from '../../domain/custody/unmovable-addresses.js';
import type { BaseChain } from '../../domain/money/networks.js';
import type { NetworkRegistry } from '../../domain/ports.js';
import type { AddressCodec } from '../../domain/custody/ports.js';

/** Why what `address` (normal form of `chain`) receives would be lost, or null. */
export async function lostDestinationReason(codec: AddressCodec, networks: NetworkRegistry, chain: BaseChain, address: string): Promise<string | null> {
  const accountId = codec.accountId(chain, address);
  if (accountId === null) return null;
  const unmovable = unmovableReason(accountId);
  if (unmovable) return unmovable;
  const configs = await networks.list();
  const contract = configs.flatMap((c) => c.assets.filter((a) => a.contractAddress !== null && codec.accountId(c.base, a.contractAddress) === accountId));
  return contract.length > 0 ? `the ${contract[0]!.asset} token contract: a token sent there is lost` : null;
}
