// Scheduled: fold the deltas the lists' counters gathered since the last run
// into one row per group, so a list's total stays a sum of a few rows (ADR 0036).
import { inject, injectable } from 'tsyringe';
import type { ListCounters } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class FoldListCounts {
  constructor(@inject(TOKENS.ListCounters) private readonly counters: ListCounters) {}

  execute(): Promise<number> {
    return this.counters.fold();
  }
}
