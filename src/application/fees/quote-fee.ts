// POST /v2/fees/quote (docs/api.md#fee-quotes): an indicative price from the same
// engine as settlement. Any valid input answers, viable or not.
import { inject, injectable } from 'tsyringe';
import { anyReadScope, requireAccess, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import { quote, type FeeDirection, type FeeMode, type FeeQuote } from '../../domain/fees/fee-engine.js';
import type { Amount } from '../../domain/money/amount.js';
import { isAssetOnChain, networkFor, type BaseChain, type Network } from '../../domain/money/networks.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { loadFeeContext } from './fee-context.js';

export interface QuoteFeeCommand {
  direction: FeeDirection;
  chain: BaseChain;
  amount: Amount;
  mode: FeeMode;
}

@injectable()
export class QuoteFee {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, cmd: QuoteFeeCommand): Promise<{ network: Network; quote: FeeQuote }> {
    requireAccess(principal, anyReadScope);
    if (!isAssetOnChain(cmd.chain, cmd.amount.asset)) {
      throw new DomainError('VALIDATION_ERROR', `${cmd.amount.asset} is not an asset of ${cmd.chain}`, [
        { path: 'asset', message: `not supported on ${cmd.chain}` },
      ]);
    }
    const now = this.clock.now();
    const ctx = await this.uow.run((tx) => loadFeeContext(tx, principal.workspaceId, principal.side, now));
    return { network: networkFor(cmd.chain, principal.side), quote: quote(cmd.direction, cmd.mode, cmd.amount, ctx) };
  }
}
