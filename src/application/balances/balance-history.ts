// The workspace's balance per network and asset at the end of each of the
// last 30 UTC days, for the dashboard's chart (issue 32). No history of
// balances is stored: it is derived from the ledger, today's balances (the
// accounts, as GET /v2/balances reads them) walked back day by day through
// the net postings of each day (LedgerRepo.dailyBalanceChanges). The last
// point is therefore the balance shown beside the chart, to the unit.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { networksOfSide, type Asset, type Network } from '../../domain/money/networks.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export const HISTORY_DAYS = 30;
const DAY_MS = 86_400_000;

export interface BalancePoint {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  /** Available + locked at the end of the day (today: now), API units. */
  total: bigint;
}

export interface BalanceSeries {
  network: Network;
  asset: Asset;
  /** Oldest first, one per day. */
  points: BalancePoint[];
}

@injectable()
export class BalanceHistory {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal): Promise<BalanceSeries[]> {
    requireScope(principal, 'wallets:read');
    const now = this.clock.now();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const days: string[] = [];
    for (let i = HISTORY_DAYS - 1; i >= 0; i--) days.push(new Date(today - i * DAY_MS).toISOString().slice(0, 10));
    const networks = networksOfSide(principal.side);
    const { balances, changes } = await this.uow.run(async (tx) => ({
      balances: await tx.ledger.balances(principal.workspaceId, networks, {}),
      changes: await tx.ledger.dailyBalanceChanges(principal.workspaceId, networks, new Date(today - (HISTORY_DAYS - 1) * DAY_MS)),
    }));
    return balances.map((b) => {
      const mine = changes.filter((c) => c.network === b.network && c.asset === b.asset);
      // Entries dated after today (a clock behind the database's) are in today's balance already: taken off first.
      let running = b.available + b.locked - mine.filter((c) => c.day > days[days.length - 1]!).reduce((s, c) => s + c.change, 0n);
      const points: BalancePoint[] = [];
      for (let i = days.length - 1; i >= 0; i--) {
        const day = days[i]!;
        points.unshift({ day, total: running });
        running -= mine.find((c) => c.day === day)?.change ?? 0n;
      }
      return { network: b.network, asset: b.asset, points };
    });
  }
}
