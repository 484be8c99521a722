// GET /v2/chains (docs/api.md#chains): the networks of the caller's side with
// their assets.
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../domain/auth/principal.js';
import { sideOf } from '../../domain/money/networks.js';
import type { NetworkConfig, NetworkRegistry } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class ListChains {
  constructor(@inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry) {}

  async execute(principal: Principal): Promise<NetworkConfig[]> {
    return (await this.networks.list()).filter((n) => sideOf(n.network) === principal.side);
  }
}
