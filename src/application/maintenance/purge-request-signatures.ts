// Scheduled: forget request signatures that can no longer be replayed.
import { inject, injectable } from 'tsyringe';
import type { Clock, RequestAdmission } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class PurgeRequestSignatures {
  constructor(
    @inject(TOKENS.RequestAdmission) private readonly admission: RequestAdmission,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  execute(): Promise<number> {
    return this.admission.purgeExpired(this.clock.now());
  }
}
