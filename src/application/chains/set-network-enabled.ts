// Operator use case (ops chain enable|disable): switches a network on or off
// for new wallets and withdrawals. Monitoring of existing addresses never stops.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import type { Network } from '../../domain/money/networks.js';
import type { Clock, NetworkRegistry, NetworkSwitches } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class SetNetworkEnabled {
  constructor(
    @inject(TOKENS.NetworkSwitches) private readonly switches: NetworkSwitches,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(network: Network, enabled: boolean): Promise<void> {
    if (enabled && !(await this.networks.get(network)).configured) {
      throw new DomainError('UNPROCESSABLE', `${network} has no node: set ${network}_RPC_URL before enabling it`);
    }
    await this.switches.set(network, enabled, this.clock.now());
  }
}
