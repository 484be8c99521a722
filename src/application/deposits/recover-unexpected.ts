// The operator's recovery of money that arrived where no wallet watches it
// (issue 31, ADR 0032). `credit` (run by the chain-worker, which has the
// node: ops deposit unexpected credit queues it) reads the transaction again
// and, when its transfer is on chain as recorded, makes the arrival a deposit
// of what it is on its wallet, once: DETECTED with DEPOSIT_DETECTED, then the
// scanner credits it at its confirmations (on what the node URLs agree on,
// screening included) and the sweeps move it to the treasury whatever the
// minimum. `markReturn` (the operator's command, in the database) asks for it
// to be sent back to its sender; the sweeps send it (a return sweep, RunSweeps).
import { inject, injectable } from 'tsyringe';
import type { ChainPort } from '../../domain/chains/chain-port.js';
import { DomainError } from '../../domain/errors.js';
import type { MonitoredAddresses } from '../../domain/deposits/ports.js';
import { creditedAs, toReturn, UnexpectedStateError, type UnexpectedDeposit, type UnexpectedStatus } from '../../domain/deposits/unexpected-deposit.js';
import { Amount } from '../../domain/money/amount.js';
import { baseChainOf, type Network } from '../../domain/money/networks.js';
import type { AddressCodec, Clock, NetworkRegistry, RandomSource, UnitOfWork } from '../../domain/ports.js';
import { lostDestinationReason } from '../custody/lost-destination.js';
import { InternalAddresses } from '../custody/internal-addresses.js';
import { TOKENS } from '../tokens.js';
import { toDeposit } from './scan-network.js';
import { publishDetected } from './settle-deposit.js';

export type CreditOutcome =
  | { outcome: 'credited'; arrival: UnexpectedDeposit; depositId: string }
  | { outcome: 'already_credited'; arrival: UnexpectedDeposit; depositId: string }
  /** The node does not show the transfer as recorded (reorged out, a node behind): nothing changed. */
  | { outcome: 'not_on_chain'; arrival: UnexpectedDeposit; reason: string };

/** An arrival as the operator reads it: the amount in the asset's API precision and in base units on chain. */
export const arrivalView = (u: UnexpectedDeposit) => ({
  id: u.id,
  status: u.status,
  chain: u.network,
  asset: u.asset,
  amount: Amount.fromChainUnits(u.asset, u.chainAmount).toString(),
  chain_amount: u.chainAmount.toString(),
  wallet_id: u.walletId,
  wallet_asset: u.walletAsset,
  workspace_id: u.workspaceId,
  address: u.toAddress,
  from_address: u.fromAddress,
  txid: u.txid,
  log_index: u.logIndex,
  block_number: u.blockNumber.toString(),
  deposit_id: u.depositId,
  return_transfer_id: u.returnTransferId,
  detected_at: u.detectedAt.toISOString(),
  resolved_at: u.resolvedAt?.toISOString() ?? null,
});

const notFound = (id: string) => new DomainError('NOT_FOUND', `no unexpected arrival ${id}`);

@injectable()
export class RecoverUnexpected {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(TOKENS.MonitoredAddresses) private readonly monitored: MonitoredAddresses,
    @inject(InternalAddresses) private readonly internal: InternalAddresses,
    @inject(TOKENS.AddressCodec) private readonly codec: AddressCodec,
  ) {}

  /** The arrivals, newest first (ops deposit unexpected list). */
  list(filter: { status?: UnexpectedStatus; network?: Network }, limit: number): Promise<UnexpectedDeposit[]> {
    return this.uow.run((tx) => tx.unexpected.list(filter, limit));
  }

  find(id: string): Promise<UnexpectedDeposit | null> {
    return this.uow.run((tx) => tx.unexpected.lock(id));
  }

  /** The arrival as a deposit of its own asset on its wallet, once; its transfer read again from the node first. */
  async credit(port: ChainPort, id: string): Promise<CreditOutcome> {
    const arrival = await this.uow.run((tx) => tx.unexpected.lock(id));
    if (!arrival || arrival.network !== port.network) throw notFound(id);
    if (arrival.status === 'CREDITED') return { outcome: 'already_credited', arrival, depositId: arrival.depositId! };
    if (arrival.status !== 'LISTED') throw new DomainError('CONFLICT', new UnexpectedStateError(arrival, 'be credited').message);
    const network = port.network;
    await this.monitored.refresh(network);
    const receipt = await port.receipt(arrival.txid);
    if (receipt?.status !== 'success') {
      return { outcome: 'not_on_chain', arrival, reason: receipt ? 'the transaction reverted' : 'the node has no such transaction in a block (reorged out, or a node behind): try again later' };
    }
    const transfers = await port.transfersOf(arrival.txid, (key) => this.monitored.has(network, key));
    const t = transfers.find(
      (x) =>
        (x.logIndex ?? null) === arrival.logIndex &&
        x.asset === arrival.asset &&
        x.to === arrival.toAddress &&
        x.from === arrival.fromAddress &&
        x.amount === arrival.chainAmount,
    );
    if (!t) return { outcome: 'not_on_chain', arrival, reason: 'the transaction does not hold this transfer on the node now' };
    const required = (await this.networks.get(network)).requiredConfirmations;
    const now = this.clock.now();
    return this.uow.run(async (tx) => {
      const current = await tx.unexpected.lock(id);
      if (!current) throw notFound(id);
      if (current.status === 'CREDITED') return { outcome: 'already_credited' as const, arrival: current, depositId: current.depositId! };
      if (current.status !== 'LISTED') throw new DomainError('CONFLICT', new UnexpectedStateError(current, 'be credited').message);
      // Money an address of the service sent is already someone's in the books: never a second time.
      if (await this.internal.isInternal(tx, network, t.from)) {
        throw new DomainError('CONFLICT', `the sender ${t.from} is one of the service's own addresses: its money is booked already, nothing is credited`);
      }
      const [wallet] = await tx.wallets.byAddresses(network, [t.to]);
      if (!wallet || wallet.id !== current.walletId) throw new DomainError('CONFLICT', `the address ${t.to} is not the wallet ${current.walletId}'s`);
      // Counted from its own block: the scanner's next step brings the confirmations up to what it has read.
      const deposit = toDeposit(t, wallet, required, t.block.number, now, this.random.uuid());
      if (!deposit) throw new DomainError('CONFLICT', 'the arrival is below the API precision of its asset: nothing to credit');
      const [recorded] = await tx.deposits.record([deposit]);
      if (!recorded) throw new DomainError('CONFLICT', `a deposit of ${t.txid} is recorded already`);
      await publishDetected(tx, [recorded]);
      const credited = creditedAs(current, recorded.id, now);
      await tx.unexpected.update(credited);
      return { outcome: 'credited' as const, arrival: credited, depositId: recorded.id };
    });
  }

  /** The operator asks for the arrival to go back to its sender: RETURNING, and the sweeps send it from the deposit address (RunSweeps). */
  async markReturn(id: string): Promise<UnexpectedDeposit> {
    return this.uow.run(async (tx) => {
      const current = await tx.unexpected.lock(id);
      if (!current) throw notFound(id);
      if (current.status === 'RETURNING' || current.status === 'RETURNED') return current;
      if (current.status !== 'LISTED') throw new DomainError('CONFLICT', new UnexpectedStateError(current, 'be returned').message);
      // The sender must be a place money can come back from: never one of the service's own addresses,
      // never an address no key controls.
      const lost = await lostDestinationReason(this.codec, this.networks, baseChainOf(current.network), current.fromAddress);
      if (lost) throw new DomainError('CONFLICT', `the sender ${current.fromAddress} is ${lost}: nothing is returned there`);
      if (await this.internal.isInternal(tx, current.network, current.fromAddress)) {
        throw new DomainError('CONFLICT', `the sender ${current.fromAddress} is one of the service's own addresses: nothing is returned there`);
      }
      const next = toReturn(current);
      await tx.unexpected.update(next);
      return next;
    });
  }
}
