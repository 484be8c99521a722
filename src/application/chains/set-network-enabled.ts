// Operator use case (ops chain enable|disable): switches a network on or off
// for new wallets and withdrawals. Monitoring of existing addresses never stops.
import { inject, injectable } from 'tsyringe';
import type { Network } from '../../domain/money/networks.js';
import type { Clock, NetworkSwitches } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class SetNetworkEnabled {
  constructor(
    @inject(TOKENS.NetworkSwitches) private readonly switches: NetworkSwitches,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  execute(network: Network, enabled: boolean): Promise<void> {
    return this.switches.set(network, enabled, this.clock.now());
  }
}
