// The operator's recovery of money that arrived where no wallet watches it
// (issue 31, ADR 0032). `credit` (run by the chain-worker, which has the
// node: ops deposit unexpected credit queues it) reads the transaction again
// and, when its transfer is on chain as recorded, makes the arrival a deposit
// of what it is on its wallet, once: DETECTED with DEPOSIT_DETECTED, then the
// scanner credits it at its confirmations (on what the node URLs agree on,
// screening included) and the sweeps move it to the treasury whatever the
// minimum. `markReturn` (run by the chain-worker too, ops deposit unexpected
// return) checks that the transfer is on chain with its confirmations before it
// asks for it to be sent back to its sender; the sweeps send it (a return
// sweep, RunSweeps).
import { inject, injectable } from 'tsyringe';
import { agreedKey, type ChainPort, type ObservedTransfer } from '../../domain/chains/chain-port.js';
import { confirmationsAt } from '../../domain/deposits/deposit.js';
import { DomainError } from '../../domain/errors.js';
import type { MonitoredAddresses } from '../../domain/deposits/ports.js';
import { creditedAs, toReturn, UnexpectedStateError, type UnexpectedDeposit, type UnexpectedStatus } from '../../domain/deposits/unexpected-deposit.js';
import { Amount } from '../../domain/money/amount.js';
import { baseChainOf, type Network } from '../../domain/money/networks.js';
import type { Clock, NetworkRegistry, RandomSource, UnitOfWork } from '../../domain/ports.js';
import type { AddressCodec } from '../../domain/custody/ports.js';
import { lostDestinationReason } from '../custody/lost-destination.js';
import { InternalAddresses } from '../custody/internal-addresses.js';
import { TOKENS } from '../tokens.js';
import { toDeposit } from './sort-transfers.js';
import { publishDetected } from './settle-deposit.js';

export type CreditOutcome =
  | { outcome: 'credited'; arrival: UnexpectedDeposit; depositId: string }
  | { outcome: 'already_credited'; arrival: UnexpectedDeposit; depositId: string }
  /** The node does not show the transfer as recorded (reorged out, a node behind): nothing changed. */
  | { outcome: 'not_on_chain'; arrival: UnexpectedDeposit; reason: string };

export type ReturnOutcome =
  | { outcome: 'returning'; arrival: UnexpectedDeposit }
  | { outcome: 'already_returning'; arrival: UnexpectedDeposit }
  /** Not on chain as recorded, not confirmed yet, or not agreed on by the node URLs: nothing changed. */
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

  /** The arrival, if any (which network's chain-worker a credit or return goes to). */
  find(id: string): Promise<UnexpectedDeposit | null> {
    return this.uow.run((tx) => tx.unexpected.lock(id));
  }

  /**
   * The arrival's transfer as the node shows it now, or why not. `settled`: it must also have the
   * network's confirmations and be what the node URLs agree on (what a return, which moves the money
   * at once, rests on; a credit leaves that to the scanner, which credits at the confirmations).
   */
  private async onChain(port: ChainPort, arrival: UnexpectedDeposit, settled: boolean): Promise<{ transfer: ObservedTransfer } | { reason: string }> {
    const network = port.network;
    await this.monitored.refresh(network);
    const isOurs = (key: string) => this.monitored.has(network, key);
    const receipt = await port.receipt(arrival.txid);
    if (receipt?.status !== 'success') {
      return { reason: receipt ? 'the transaction reverted' : 'the node has no such transaction in a block (reorged out, or a node behind): try again later' };
    }
    const t = (await port.transfersOf(arrival.txid, isOurs)).find(
      (x) =>
        (x.logIndex ?? null) === arrival.logIndex &&
        x.asset === arrival.asset &&
        x.to === arrival.toAddress &&
        x.from === arrival.fromAddress &&
        x.amount === arrival.chainAmount,
    );
    if (!t) return { reason: 'the transaction does not hold this transfer on the node now' };
    if (!settled) return { transfer: t };
    const required = (await this.networks.get(network)).requiredConfirmations;
    const confirmations = confirmationsAt(t.block.number, (await port.head()).number);
    if (confirmations < required) return { reason: `it has ${confirmations} of the ${required} confirmations a return waits for: try again later` };
    if (port.agreedTransfers && !(await port.agreedTransfers([t.txid], isOurs)).has(agreedKey({ ...t, blockHash: t.block.hash }))) {
      return { reason: 'the node URLs do not agree on this transfer yet: try again later' };
    }
    return { transfer: t };
  }

  /** The arrival as a deposit of its own asset on its wallet, once; its transfer read again from the node first. */
  async credit(port: ChainPort, id: string): Promise<CreditOutcome> {
    const arrival = await this.uow.run((tx) => tx.unexpected.lock(id));
    if (!arrival || arrival.network !== port.network) throw notFound(id);
    if (arrival.status === 'CREDITED') return { outcome: 'already_credited', arrival, depositId: arrival.depositId! };
    if (arrival.status !== 'LISTED') throw new UnexpectedStateError(arrival, 'be credited');
    const network = port.network;
    const found = await this.onChain(port, arrival, false);
    if ('reason' in found) return { outcome: 'not_on_chain', arrival, reason: found.reason };
    const t = found.transfer;
    const required = (await this.networks.get(network)).requiredConfirmations;
    const now = this.clock.now();
    return this.uow.run(async (tx) => {
      const current = await tx.unexpected.lock(id);
      if (!current) throw notFound(id);
      if (current.status === 'CREDITED') return { outcome: 'already_credited' as const, arrival: current, depositId: current.depositId! };
      if (current.status !== 'LISTED') throw new UnexpectedStateError(current, 'be credited');
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

  /**
   * The operator sends the arrival back to its sender (run by the chain-worker): once its transfer is on
   * chain with the network's confirmations, as the node URLs agree, it is RETURNING, and the sweeps send
   * it from the deposit address (a return sweep, RunSweeps). Money that is not there is never "returned"
   * with someone else's.
   */
  async markReturn(port: ChainPort, id: string): Promise<ReturnOutcome> {
    const arrival = await this.uow.run((tx) => tx.unexpected.lock(id));
    if (!arrival || arrival.network !== port.network) throw notFound(id);
    if (arrival.status === 'RETURNING' || arrival.status === 'RETURNED') return { outcome: 'already_returning', arrival };
    if (arrival.status !== 'LISTED') throw new UnexpectedStateError(arrival, 'be returned');
    // The sender must be a place money can come back to: never one of the service's own addresses,
    // never an address no key controls.
    const lost = await lostDestinationReason(this.codec, this.networks, baseChainOf(arrival.network), arrival.fromAddress);
    if (lost) throw new DomainError('CONFLICT', `the sender ${arrival.fromAddress} is ${lost}: nothing is returned there`);
    const found = await this.onChain(port, arrival, true);
    if ('reason' in found) return { outcome: 'not_on_chain', arrival, reason: found.reason };
    return this.uow.run(async (tx) => {
      const current = await tx.unexpected.lock(id);
      if (!current) throw notFound(id);
      if (current.status === 'RETURNING' || current.status === 'RETURNED') return { outcome: 'already_returning' as const, arrival: current };
      if (current.status !== 'LISTED') throw new UnexpectedStateError(current, 'be returned');
      if (await this.internal.isInternal(tx, current.network, current.fromAddress)) {
        throw new DomainError('CONFLICT', `the sender ${current.fromAddress} is one of the service's own addresses: nothing is returned there`);
      }
      const next = toReturn(current);
      await tx.unexpected.update(next);
      return { outcome: 'returning' as const, arrival: next };
    });
  }
}
