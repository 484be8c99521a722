// The fees billed so far this month, cumulative at the end of each UTC day,
// for the dashboard's chart against the prorated floor (issue 32). The same
// count as GET /v2/commitment's billed_fees_usdt (ReadCommitment): the
// mainnet stablecoin fees of the ledger (feesCharged), EURC at the operator's
// rate or left out without one; today's point is taken now, so it equals
// billed_fees_usdt.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { billedUsd, monthOf, type Month } from '../../domain/commitments/commitment.js';
import { networksOfSide, type Asset } from '../../domain/money/networks.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

const DAY_MS = 86_400_000;

export interface FeeProgress {
  month: Month;
  /** Oldest first: each day of the month so far, with the USD (6-place units) billed from the month's start to its end. */
  days: { day: string; billedUsd: bigint }[];
}

@injectable()
export class ReadFeeProgress {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal): Promise<FeeProgress> {
    requireScope(principal, 'fees:read');
    const now = this.clock.now();
    const month = monthOf(now);
    const days = await this.uow.run(async (tx) => {
      const rate = (await tx.fx.rate('EURC_USD'))?.ppm ?? null;
      const running = new Map<Asset, bigint>();
      const out: FeeProgress['days'] = [];
      for (let start = month.start.getTime(); start < now.getTime(); start += DAY_MS) {
        const end = new Date(start + DAY_MS < now.getTime() ? start + DAY_MS : now.getTime());
        const fees = await tx.ledger.feesCharged(principal.workspaceId, networksOfSide('live'), new Date(start), end);
        for (const [asset, units] of fees) running.set(asset, (running.get(asset) ?? 0n) + units);
        out.push({ day: new Date(start).toISOString().slice(0, 10), billedUsd: billedUsd(running, rate, { strict: false }) });
      }
      return out;
    });
    return { month, days };
  }
}
