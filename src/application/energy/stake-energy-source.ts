// The stake as an EnergySource (ADR 0035): the energy account of each TRON
// network stakes TRX for energy (Stake 2.0) and lends it by delegating the
// stake to the address that sends (DelegateResource, never locked), taking
// it back with UnDelegateResource; both are outgoing transfers of their own
// kinds, sent once by the pipeline. It lends only what the chain shows free
// of what loans and unstakes on their way promised, and only while the
// account holds the bytes of this loan and of every take-back still owed.
import { inject, injectable } from 'tsyringe';
import { servicePath } from '../../domain/custody/derivation.js';
import type { EnergyDelegation } from '../../domain/energy/delegation.js';
import { decideEnergy, type EnergyDecision, type EnergyPolicy } from '../../domain/energy/energy-plan.js';
import type { EnergySource } from '../../domain/energy/energy-source.js';
import { delegableStake, energyAvailable, type EnergyChain } from '../../domain/energy/resources.js';
import type { Network } from '../../domain/money/networks.js';
import type { Clock, TxContext } from '../../domain/ports.js';
import type { SignerPort } from '../../domain/custody/ports.js';
import { requestTransfer, type TransferKind } from '../../domain/transfers/outgoing-transfer.js';
import { TOKENS } from '../tokens.js';
import { promisedStake, STAKE_TX_FEE_CAP, takeBackReserve } from './manage-energy.js';

@injectable()
export class StakeEnergySource implements EnergySource {
  readonly kind = 'stake' as const;
  private readonly accounts = new Map<Network, Promise<string>>();

  constructor(
    @inject(TOKENS.Signer) private readonly signer: SignerPort,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  lender(network: Network): Promise<string> {
    let found = this.accounts.get(network);
    if (!found) {
      found = this.signer.deriveAddress('TRON', servicePath(network, 'energy'));
      this.accounts.set(network, found);
    }
    return found;
  }

  async offer(tx: TxContext, network: Network, estimate: bigint, policy: EnergyPolicy, chain: EnergyChain): Promise<EnergyDecision> {
    const account = await this.lender(network);
    const [stake, resources] = await Promise.all([chain.stake(account), chain.resources(account)]);
    if (!stake || !resources) return { kind: 'burn', reason: 'not_enough_stake' };
    // The energy account pays the bytes of this loan and its take-back, and keeps those of the take-backs its open
    // loans still need: a take-back it could not pay would leave the stake with an address.
    const free = stake.balance - (await tx.transfers.committedOutflow(network, account, 'TRX')) - (await takeBackReserve(tx, network));
    if (free < 2n * STAKE_TX_FEE_CAP) return { kind: 'burn', reason: 'energy_account_low' };
    // Promised to loans and unstakes whose transaction is in no block yet: the chain's stake still counts them.
    const promised = await promisedStake(tx, network, account);
    return decideEnergy({ policy, estimate, lendable: delegableStake(stake, resources) - promised, network: resources });
  }

  async deliver(tx: TxContext, loan: EnergyDelegation): Promise<void> {
    await tx.transfers.add(this.transfer('ENERGY_DELEGATE', loan, loan.delegateTransferId));
  }

  async takeBack(tx: TxContext, loan: EnergyDelegation, transferId: string): Promise<void> {
    await tx.transfers.add(this.transfer('ENERGY_RECLAIM', loan, transferId));
  }

  lentOnEveryNode(chain: EnergyChain, from: string, to: string, since: bigint): Promise<bigint | null> {
    return chain.delegatedOnEveryNode(from, to, since);
  }

  async available(chain: EnergyChain, network: Network): Promise<bigint | null> {
    const resources = await chain.resources(await this.lender(network));
    return resources ? energyAvailable(resources) : null;
  }

  /** A delegation or take-back of the loan's stake, from the energy account, paying at most its bytes. */
  private transfer(kind: TransferKind, loan: EnergyDelegation, id: string) {
    const network = loan.network as Network;
    return requestTransfer({
      id,
      kind,
      network,
      asset: 'TRX',
      from: loan.from,
      fromPath: servicePath(network, 'energy'),
      to: loan.receiver,
      amount: loan.stake,
      requestedAt: this.clock.now(),
      feeCap: STAKE_TX_FEE_CAP,
    });
  }
}
