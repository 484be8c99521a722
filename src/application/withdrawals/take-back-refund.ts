// An operator's correction for a withdrawal that was both paid on chain and
// FAILED and refunded in the books (what the reconciliation names, ADR 0031;
// `ops withdrawal paid --id ID`): once a payout attempt is proved in a block
// with the network's confirmations on every node URL, the refund is taken
// back by a new entry (WITHDRAWAL_REFUND_REVERSAL): what the workspace still
// has available, the rest as its receivable. The withdrawal stays FAILED, the
// contract's last word for it; the operator tells the workspace.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import { reverseRefund } from '../../domain/ledger/entries.js';
import { Amount } from '../../domain/money/amount.js';
import type { Clock, NetworkRegistry, RandomSource, UnitOfWork } from '../../domain/ports.js';
import type { ChainSender, SentReceipt } from '../../domain/transfers/ports.js';
import type { Withdrawal } from '../../domain/withdrawals/withdrawal.js';
import { TOKENS } from '../tokens.js';

export interface RefundTakenBack {
  withdrawal: Withdrawal;
  /** The payout found on chain. */
  txid: string;
  block: bigint;
  /** API units of the withdrawal's asset. */
  fromAvailable: bigint;
  toReceivable: bigint;
}

@injectable()
export class TakeBackRefund {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  async execute(senders: readonly ChainSender[], id: string): Promise<RefundTakenBack> {
    const found = await this.uow.run(async (tx) => {
      const w = await tx.withdrawals.lock(id);
      if (!w) throw new DomainError('NOT_FOUND', `No withdrawal ${id}`);
      if (w.status !== 'FAILED' || w.transferId === null) throw new DomainError('UNPROCESSABLE', `Withdrawal ${id} is ${w.status}${w.transferId === null ? ', never sent' : ''}: only a FAILED one that was sent can be found paid`);
      if (!(await tx.ledger.posted(`withdrawal:${id}:refund`))) throw new DomainError('UNPROCESSABLE', `Withdrawal ${id} was never refunded`);
      const transfer = await tx.transfers.get(w.transferId);
      return { w, txids: transfer?.attempts.map((a) => a.txid) ?? [] };
    });
    const chain = senders.find((s) => s.network === found.w.network);
    if (!chain) throw new DomainError('UNPROCESSABLE', `No node is configured for ${found.w.network}: the payout cannot be looked for`);
    // Proof, not one read: the receipt the URLs agree on (one URL can lie), with the network's confirmations.
    const required = BigInt((await this.networks.get(found.w.network)).requiredConfirmations);
    let paid: SentReceipt | null = null;
    for (const txid of found.txids) {
      const r = await chain.agreedReceipt(txid);
      if (r?.status === 'success') paid = r;
    }
    const head = (await chain.head()).number;
    if (!paid || head - paid.block.number + 1n < required) {
      throw new DomainError('UNPROCESSABLE', `No payout of withdrawal ${id} is in a block with ${required} confirmations on any node URL: nothing changed`);
    }
    const receipt = paid;
    return this.uow.run(async (tx) => {
      const w = (await tx.withdrawals.lock(id))!;
      const [balance] = await tx.ledger.balances(w.workspaceId, [w.network], { network: w.network, asset: w.asset });
      const available = balance?.available ?? 0n;
      const fromAvailable = available < w.amount ? available : w.amount;
      const posted = await tx.ledger.post(
        reverseRefund({
          id: this.random.uuid(),
          network: w.network,
          at: this.clock.now(),
          withdrawalId: w.id,
          workspaceId: w.workspaceId,
          amount: Amount.ofUnits(w.asset, w.amount),
          fee: Amount.ofUnits(w.asset, w.fee),
          fromAvailable: Amount.ofUnits(w.asset, fromAvailable),
        }),
      );
      if (posted === 'duplicate') throw new DomainError('UNPROCESSABLE', `The refund of withdrawal ${id} was taken back already`);
      return { withdrawal: w, txid: receipt.txid, block: receipt.block.number, fromAvailable, toReceivable: w.amount - fromAvailable };
    });
  }
}
