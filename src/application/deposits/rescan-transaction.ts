// An operator's rescan of one transaction (ops deposit rescan, run by the
// chain-worker that has the node): its transfers to monitored addresses are
// recorded as deposits exactly as the scanner would, so a transfer the scanner
// missed is recorded once and one it already has is left as it is. The
// scanner then counts its confirmations and credits it.
import { inject, injectable } from 'tsyringe';
import type { ChainPort } from '../../domain/chains/chain-port.js';
import type { MonitoredAddresses } from '../../domain/deposits/ports.js';
import type { Clock, NetworkRegistry, RandomSource, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { InternalAddresses } from '../custody/internal-addresses.js';
import { sortTransfers } from './sort-transfers.js';
import { publishDetected } from './settle-deposit.js';

export interface RescanResult {
  /** What the node says of the transaction: not in a block (unknown, pending or reorged out), reverted, or included and successful. */
  transaction: 'not_included' | 'reverted' | 'success';
  /** Transfers of the transaction to monitored addresses, in a block. */
  found: number;
  /** Of those, the ones that were not recorded yet. */
  recorded: number;
  deposits: { id: string; status: string }[];
  /** Transfers of another asset than their wallet's (listed by ops deposit unexpected list), and how many were new. */
  unexpected: number;
  unexpected_recorded: number;
}

@injectable()
export class RescanTransaction {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(TOKENS.MonitoredAddresses) private readonly monitored: MonitoredAddresses,
    @inject(InternalAddresses) private readonly internal: InternalAddresses,
  ) {}

  async execute(port: ChainPort, txid: string): Promise<RescanResult> {
    const network = port.network;
    await this.monitored.refresh(network);
    const receipt = await port.receipt(txid);
    const transaction = receipt === null ? 'not_included' : receipt.status;
    const transfers = receipt?.status === 'success' ? await port.transfersOf(txid, (key) => this.monitored.has(network, key)) : [];
    const required = (await this.networks.get(network)).requiredConfirmations;
    const now = this.clock.now();
    const serviceRole = await this.internal.senderRoles(network);
    return this.uow.run(async (tx) => {
      // Counted from its own block: the scanner's next step brings the confirmations up to what it has read.
      const sorted = await sortTransfers(tx, transfers, required, (t) => t.block.number, now, this.random, serviceRole);
      const fresh = sorted.deposits;
      const recorded = await tx.deposits.record(fresh);
      await publishDetected(tx, recorded);
      const unexpected = await tx.unexpected.record(sorted.unexpected);
      const all: { id: string; status: string }[] = [];
      for (const d of fresh) {
        const kept = await tx.deposits.byIdentity(network, d.txid, d.logIndex);
        if (kept) all.push({ id: kept.id, status: kept.status });
      }
      return { transaction, found: fresh.length, recorded: recorded.length, deposits: all, unexpected: sorted.unexpected.length, unexpected_recorded: unexpected };
    });
  }
}
