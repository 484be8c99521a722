// The operator's decision on a FLAGGED deposit (ops deposit release|reject):
// release credits it as CONFIRMED (DEPOSIT_CONFIRMED), reject makes it
// REJECTED, never credited (DEPOSIT_REJECTED). Any other status is refused
// and nothing changes.
import { inject, injectable } from 'tsyringe';
import type { Deposit } from '../../domain/deposits/deposit.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import type { Clock, RandomSource, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { credit, reject } from './settle-deposit.js';

@injectable()
export class ReviewDeposit {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  execute(id: string, decision: 'release' | 'reject'): Promise<Deposit> {
    if (!isUuid(id)) return Promise.reject(new DomainError('NOT_FOUND', `no deposit ${id}`));
    return this.uow.run(async (tx) => {
      const d = await tx.deposits.lockById(id.toLowerCase());
      if (!d) throw new DomainError('NOT_FOUND', `no deposit ${id}`);
      if (d.status !== 'FLAGGED') {
        throw new DomainError('CONFLICT', `deposit ${id} is ${d.status}; only a FLAGGED deposit can be released or rejected`, {
          status: d.status,
        });
      }
      const now = this.clock.now();
      return decision === 'release' ? credit(tx, d, now, this.random) : reject(tx, d, now);
    });
  }
}
