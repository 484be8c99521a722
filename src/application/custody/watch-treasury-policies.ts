// The chain-worker's watch over the treasury policies (issue 31, ADR 0032):
// each pass brings into force the cold address changes whose cooling-off has
// ended (recorded once, as COLD_ADDRESS_IN_FORCE) and returns every change
// still waiting, for the log and the metrics to announce.
import { inject, injectable } from 'tsyringe';
import { inForce, type PendingColdAddress } from '../../domain/custody/treasury-policy.js';
import type { Asset, Network } from '../../domain/money/networks.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export interface PolicyWatch {
  network: Network;
  asset: Asset;
  coldAddress: string | null;
  pending: PendingColdAddress | null;
  /** The cold address that came into force in this pass (it was pending until now). */
  cameIntoForce: string | null;
}

@injectable()
export class WatchTreasuryPolicies {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(): Promise<PolicyWatch[]> {
    return this.uow.run(async (tx) => {
      const now = this.clock.now();
      const out: PolicyWatch[] = [];
      for (const stored of await tx.treasury.policies()) {
        const current = inForce(stored, now);
        let cameIntoForce: string | null = null;
        if (stored.pending && !current.pending) {
          // Under the row's lock: another pass (or a cancel) may have come first.
          const locked = await tx.treasury.policyForUpdate(stored.network, stored.asset);
          if (locked?.pending && locked.pending.effectiveAt.getTime() <= now.getTime()) {
            const promoted = inForce(locked, now);
            await tx.treasury.savePolicy(promoted);
            await tx.treasury.record({
              network: stored.network,
              asset: stored.asset,
              kind: 'COLD_ADDRESS_IN_FORCE',
              detail: { cold_address: promoted.coldAddress, replaces: locked.coldAddress, cooling_off_hours: promoted.coolingOffHours },
              at: now,
            });
            cameIntoForce = promoted.coldAddress;
          }
        }
        out.push({ network: current.network, asset: current.asset, coldAddress: current.coldAddress, pending: current.pending, cameIntoForce });
      }
      return out;
    });
  }
}
