// Operator use cases over the payout holds a difference with the chain sets
// (ReconcileChain; docs/operations.md#reconciliation-with-the-chain): what is
// held and why, and letting a network's payouts go on once an operator looked.
import { inject, injectable } from 'tsyringe';
import type { ReconciliationStore } from '../../domain/ledger/reconciliation.js';
import type { Network } from '../../domain/money/networks.js';
import type { Clock } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class PayoutHolds {
  constructor(
    @inject(TOKENS.ReconciliationStore) private readonly store: ReconciliationStore,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  list(): Promise<{ network: Network; reason: string; heldAt: Date }[]> {
    return this.store.holds();
  }

  /**
   * Lets the network's payouts go on; false when they were not held. What the
   * last run showed is acknowledged: the same items, or a deficit no deeper,
   * do not hold them again; anything new does.
   */
  resume(network: Network): Promise<boolean> {
    return this.store.release(network, this.clock.now());
  }
}
