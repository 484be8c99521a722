// The monthly settlement of fee commitments (docs/api.md#fee-commitment,
// ADR 0030). For a closed calendar month, each commitment that covered a day
// of it gets one adjustment: the floor prorated by the days covered, the fees
// the ledger shows were charged to the workspace that month on mainnet
// stablecoins (EURC at the operator's EURC/USD rate), and the shortfall. A
// shortfall is OPEN and announced (COMMITMENT_ADJUSTMENT_EMITTED); with
// automatic debit, what the workspace has available in the settlement asset
// is debited at once (never below zero), and what remains is debited by the
// later runs as top-ups arrive. The month's adjustment is unique: settling it
// again changes nothing.
import { inject, injectable } from 'tsyringe';
import {
  assess,
  billedUsd,
  debited,
  formatMonth,
  fromUsd,
  monthOf,
  needsEurcRate,
  previousMonth,
  toUsd,
  type Adjustment,
  type Month,
  type SettlementAsset,
} from '../../domain/commitments/commitment.js';
import { DomainError } from '../../domain/errors.js';
import { debitCommitment } from '../../domain/ledger/entries.js';
import { Amount } from '../../domain/money/amount.js';
import { BASE_CHAINS, CHAIN_ASSETS, networkFor, networksOfSide, type Network } from '../../domain/money/networks.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { adjustmentEventData, type AdjustmentView } from './commitment-view.js';

/** How many closed months the scheduled run looks back at (a deployment down over a month's end still settles it). */
const LOOKBACK_MONTHS = 3;
const RECOVER_BATCH = 200;

export interface SettledMonth {
  month: string;
  /** The month's adjustments written by this call. */
  settled: (AdjustmentView & { commitment_id: string; workspace_id: string })[];
  /** Commitments of the month that already had their adjustment (nothing changed). */
  already_settled: number;
  /** Commitments that could not be settled (e.g. EURC fees and no EURC_USD rate); tried again by the next run. */
  failed: { commitment_id: string; reason: string }[];
}

/**
 * One commitment's work: its own trouble (a rate missing, a balance taken meanwhile) is recorded and holds
 * only that commitment, tried again by the next run; a database failure stops the run.
 */
async function alone<T>(commitmentId: string, failed: SettledMonth['failed'], work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    failed.push({ commitment_id: commitmentId, reason: err.message });
    return undefined;
  }
}

const mainnetOf = (asset: SettlementAsset): Network => networkFor(BASE_CHAINS.find((c) => CHAIN_ASSETS[c].includes(asset))!, 'live');

@injectable()
export class SettleCommitments {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  /** Settles one closed month (ops commitment settle --month); a month not over yet is UNPROCESSABLE. */
  async settleMonth(month: Month): Promise<SettledMonth> {
    if (month.end > this.clock.now()) throw new DomainError('UNPROCESSABLE', `${formatMonth(month)} has not closed yet: a month is settled once it is over (UTC)`);
    const ids = await this.uow.run((tx) => tx.commitments.coveringIds(month));
    const out: SettledMonth = { month: formatMonth(month), settled: [], already_settled: 0, failed: [] };
    for (const id of ids) {
      const result = await alone(id, out.failed, () => this.uow.run((tx) => this.settleOne(tx, id, month)));
      if (result === 'already') out.already_settled++;
      else if (result) out.settled.push(adjustmentEventData(result));
    }
    return out;
  }

  /** The scheduled run: the last closed months, then what is outstanding on automatic debit. */
  async run(): Promise<{ settled: number; failed: SettledMonth['failed']; recovered: number }> {
    let month = previousMonth(monthOf(this.clock.now()));
    const months: Month[] = [];
    for (let i = 0; i < LOOKBACK_MONTHS; i++, month = previousMonth(month)) months.unshift(month);
    let settled = 0;
    const failed: SettledMonth['failed'] = [];
    for (const m of months) {
      const out = await this.settleMonth(m);
      settled += out.settled.length;
      failed.push(...out.failed);
    }
    return { settled, failed, recovered: await this.recover(failed) };
  }

  /** Debits what is outstanding on automatic debit from what the workspaces have available now (after a top-up). */
  async recover(failed: SettledMonth['failed'] = []): Promise<number> {
    const owed = await this.uow.run((tx) => tx.commitments.recoverable(RECOVER_BATCH));
    let recovered = 0;
    for (const { commitmentId, periodStart } of owed) {
      const paid = await alone(commitmentId, failed, () =>
        this.uow.run(async (tx) => {
          // The commitment first, then its adjustment: the order settleOne takes them in.
          const c = await tx.commitments.lock(commitmentId);
          const a = await tx.commitments.lockAdjustment(commitmentId, periodStart);
          if (!a || !c || a.status !== 'OPEN' || a.outstanding === 0n) return false;
          const next = await this.debit(tx, a, c.settlementAsset);
          if (next === a) return false;
          await tx.commitments.saveAdjustment(next);
          return true;
        }),
      );
      if (paid) recovered++;
    }
    return recovered;
  }

  private async settleOne(tx: TxContext, commitmentId: string, month: Month): Promise<Adjustment | 'already' | null> {
    const c = await tx.commitments.lock(commitmentId);
    if (!c) return null;
    if (await tx.commitments.lockAdjustment(c.id, month.start)) return 'already';
    const fees = await tx.ledger.feesCharged(c.workspaceId, networksOfSide('live'), month.start, month.end);
    const rate = needsEurcRate(fees, c.settlementAsset) ? ((await tx.fx.rate('EURC_USD'))?.ppm ?? null) : null;
    const billed = billedUsd(fees, rate, { strict: true });
    const now = this.clock.now();
    const assessed = assess({ id: this.random.uuid(), commitment: c, month, billedFees: billed, eurcUsdPpm: rate, at: now });
    if (assessed.daysCovered === 0) return null; // suspended for the whole month: nothing to settle
    if (!(await tx.commitments.addAdjustment(assessed))) return 'already';
    if (assessed.status === 'NOT_DUE') return assessed;
    const adjustment = c.autoDebit ? await this.debit(tx, assessed, c.settlementAsset) : assessed;
    if (adjustment !== assessed) await tx.commitments.saveAdjustment(adjustment);
    // Live fees, so the live side's endpoints are told.
    await tx.events.publish({ workspaceId: c.workspaceId, side: 'live', event: 'COMMITMENT_ADJUSTMENT_EMITTED', data: adjustmentEventData(adjustment) });
    return adjustment;
  }

  /** Debits min(outstanding, available) in the settlement asset: the adjustment as it then stands. */
  private async debit(tx: TxContext, a: Adjustment, asset: SettlementAsset): Promise<Adjustment> {
    const network = mainnetOf(asset);
    const rate = a.eurcUsdPpm ?? (asset === 'EURC_ETH' ? ((await tx.fx.rate('EURC_USD'))?.ppm ?? null) : null);
    const owed = fromUsd(asset, a.outstanding, rate);
    const available = (await tx.ledger.balances(a.workspaceId, [network], { network, asset })).find((b) => b.asset === asset)?.available ?? 0n;
    const take = available < owed ? available : owed;
    if (take <= 0n) return a;
    const now = this.clock.now();
    await tx.ledger.post(
      debitCommitment({ id: this.random.uuid(), network, at: now, adjustmentId: a.id, debitedBefore: a.debited, workspaceId: a.workspaceId, amount: Amount.ofUnits(asset, take) }),
    );
    return debited(a, take === owed ? a.outstanding : toUsd(asset, take, rate), now);
  }
}
