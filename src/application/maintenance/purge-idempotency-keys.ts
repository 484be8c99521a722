// Scheduled: forget idempotency records older than their 24 hours.
import { inject, injectable } from 'tsyringe';
import type { Clock, IdempotencyPurger } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class PurgeIdempotencyKeys {
  constructor(
    @inject(TOKENS.IdempotencyPurger) private readonly purger: IdempotencyPurger,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  execute(): Promise<number> {
    return this.purger.purgeExpired(this.clock.now());
  }
}
