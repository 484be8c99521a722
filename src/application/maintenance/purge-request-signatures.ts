// Scheduled: forget request signatures that can no longer be replayed.
import { inject, injectable } from 'tsyringe';
import type { Clock, ReplayGuard } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class PurgeRequestSignatures {
  constructor(
    @inject(TOKENS.ReplayGuard) private readonly replays: ReplayGuard,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  execute(): Promise<number> {
    return this.replays.purgeExpired(this.clock.now());
  }
}
