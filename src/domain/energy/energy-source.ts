// EnergySource (ADR 0035): where a TRON transfer's energy comes from when it
// is not burnt. LendEnergy (src/application/energy/lend-energy.ts) plans
// each loan, records it, follows its lifecycle (delegation.ts) and falls back
// to burning; a source only says what it can provide and provides it. The
// stake of the energy account is one (StakeEnergySource, Stake 2.0
// delegations through the outgoing-transfer pipeline); a rental provider
// would be another, with the guarantees ADR 0035 lists: the energy on chain
// at the receiver before the transfer is signed, never dearer than the burn
// it replaces, idempotent per loan across restarts, and saying when the
// energy is gone.
import type { Network } from '../money/networks.js';
import type { TxContext } from '../ports.js';
import type { EnergyDelegation } from './delegation.js';
import type { EnergyDecision, EnergyPolicy, EnergySourceKind } from './energy-plan.js';
import type { EnergyChain } from './resources.js';

export interface EnergySource {
  readonly kind: Exclude<EnergySourceKind, 'burn'>;
  /** The account that lends on `network` (a loan's `from`). */
  lender(network: Network): Promise<string>;
  /**
   * Whether it can provide `estimate` units of energy (× the policy's margin) now: what it would lend, or why the
   * transfer burns instead. Called under the network's lender lock, in the transaction that records the loan; reads
   * the chain, writes nothing.
   */
  offer(tx: TxContext, network: Network, estimate: bigint, policy: EnergyPolicy, chain: EnergyChain): Promise<EnergyDecision>;
  /**
   * Starts delivering a loan's energy to its receiver, in the transaction that records the loan: the outgoing
   * transfer `loan.delegateTransferId` that delivers it. The loan is DELEGATED once that transfer is CONFIRMED,
   * CANCELLED when it FAILED.
   */
  deliver(tx: TxContext, loan: EnergyDelegation): Promise<void>;
  /** Asks a loan's energy back, in the transaction that ends what it served: the outgoing transfer `transferId`. */
  takeBack(tx: TxContext, loan: EnergyDelegation, transferId: string): Promise<void>;
  /**
   * What `from` still lends `to` as every node shows it, each past block `since`; null when one is behind, cannot
   * say, or they disagree (a loan is never closed on one backend's word).
   */
  lentOnEveryNode(chain: EnergyChain, from: string, to: string, since: bigint): Promise<bigint | null>;
  /** Energy it can use or lend now on `network` (a gauge); null when the chain cannot say. */
  available(chain: EnergyChain, network: Network): Promise<bigint | null>;
}
