// The money side of a deposit's lifecycle, shared by the scanner and the
// operator's commands: crediting at CONFIRMED (fee from the engine, one
// balanced entry, DEPOSIT_CONFIRMED), flagging, rejecting, and reversing a
// credit that a deep reorg took away (ADR 0021). All inside the caller's
// unit of work.
import { depositFee, type Deposit } from '../../domain/deposits/deposit.js';
import { charge } from '../../domain/fees/fee-engine.js';
import type { FeeContext } from '../../domain/fees/fee-schedule.js';
import { creditDeposit, depositReference, reverseDepositCredit } from '../../domain/ledger/entries.js';
import { Amount } from '../../domain/money/amount.js';
import { sideOf } from '../../domain/money/networks.js';
import type { RandomSource, TxContext } from '../../domain/ports.js';
import { loadFeeContext } from '../fees/fee-context.js';
import { depositEventData } from './deposit-view.js';

type DepositEvent = 'DEPOSIT_DETECTED' | 'DEPOSIT_CONFIRMED' | 'DEPOSIT_FLAGGED' | 'DEPOSIT_REJECTED';

const publishAll = (tx: TxContext, deposits: readonly Deposit[], event: DepositEvent) =>
  tx.events.publishMany(deposits.map((d) => ({ workspaceId: d.workspaceId, side: sideOf(d.network), event, data: depositEventData(d) })));

/**
 * DEPOSIT_DETECTED of newly recorded deposits, in one go; a SWEPT wallet that
 * received one is ACTIVE again.
 */
export const publishDetected = async (tx: TxContext, deposits: Deposit[]) => {
  if (deposits.length === 0) return;
  await tx.wallets.reactivate(deposits.map((d) => d.walletId));
  await publishAll(tx, deposits, 'DEPOSIT_DETECTED');
};

/**
 * The fee inputs of each workspace, read once per unit of work: a scanner step
 * crediting many deposits of one workspace prices them all with the tier and
 * override it had at the start of the step.
 */
export class FeeContexts {
  private readonly cache = new Map<string, Promise<FeeContext>>();
  constructor(
    private readonly tx: TxContext,
    private readonly now: Date,
  ) {}

  of(d: Deposit): Promise<FeeContext> {
    const key = `${d.workspaceId}:${sideOf(d.network)}`;
    let ctx = this.cache.get(key);
    if (!ctx) {
      ctx = loadFeeContext(this.tx, d.workspaceId, sideOf(d.network), this.now);
      this.cache.set(key, ctx);
    }
    return ctx;
  }
}

/**
 * How many times each deposit's credit was reversed: a deposit reversed by a deep reorg and found
 * again is credited in a new cycle (depositReference), never under the reference already used.
 */
async function reversals(tx: TxContext, depositIds: readonly string[]): Promise<Map<string, number>> {
  const cycles = new Map(depositIds.map((id) => [id, 0]));
  let open = [...cycles.keys()];
  for (let n = 0; open.length > 0; n++) {
    const posted = await tx.ledger.postedAmong(open.map((id) => depositReference(id, 'reversal', n)));
    open = open.filter((id) => posted.has(depositReference(id, 'reversal', n)));
    for (const id of open) cycles.set(id, n + 1);
  }
  return cycles;
}

/** CONFIRMED: the net goes to the workspace's available balance, the fee to revenue. */
export async function credit(tx: TxContext, d: Deposit, now: Date, random: RandomSource, fees = new FeeContexts(tx, now)): Promise<Deposit> {
  return (await creditAll(tx, [d], now, random, fees))[0]!;
}

/**
 * credit() of many deposits in a few statements, whatever their number (a scanner step's): one
 * read of their reversal cycles, their entries posted together, their rows and DEPOSIT_CONFIRMED
 * events written in one go each.
 */
export async function creditAll(tx: TxContext, deposits: readonly Deposit[], now: Date, random: RandomSource, fees = new FeeContexts(tx, now)): Promise<Deposit[]> {
  if (deposits.length === 0) return [];
  const cycles = await reversals(
    tx,
    deposits.map((d) => d.id),
  );
  const entries = [];
  const next: Deposit[] = [];
  for (const d of deposits) {
    const gross = Amount.ofUnits(d.asset, d.amount);
    const c = charge('deposit', gross, await fees.of(d));
    const fee = depositFee({ fee: c.fee.units, appliedRatePpm: c.appliedRatePpm, minFee: c.minFee?.units ?? 0n }, d.amount);
    entries.push(
      creditDeposit({
        id: random.uuid(),
        network: d.network,
        at: now,
        depositId: d.id,
        cycle: cycles.get(d.id)!,
        workspaceId: d.workspaceId,
        gross,
        fee: Amount.ofUnits(d.asset, fee.feeAmount),
      }),
    );
    next.push({ ...d, status: 'CONFIRMED', fee, confirmedAt: now, updatedAt: now });
  }
  await tx.ledger.postMany(entries);
  await tx.deposits.updateMany(next);
  await publishAll(tx, next, 'DEPOSIT_CONFIRMED');
  return next;
}

/** FLAGGED: the sender is on the operator's deny list; nothing is credited until an operator releases it. */
export async function flag(tx: TxContext, d: Deposit, now: Date): Promise<Deposit> {
  return (await flagAll(tx, [d], now))[0]!;
}

/** flag() of many deposits in one go. */
export async function flagAll(tx: TxContext, deposits: readonly Deposit[], now: Date): Promise<Deposit[]> {
  if (deposits.length === 0) return [];
  const next = deposits.map((d): Deposit => ({ ...d, status: 'FLAGGED', updatedAt: now }));
  await tx.deposits.updateMany(next);
  await publishAll(tx, next, 'DEPOSIT_FLAGGED');
  return next;
}

/** REJECTED by the operator: never credited. */
export async function reject(tx: TxContext, d: Deposit, now: Date): Promise<Deposit> {
  const next: Deposit = { ...d, status: 'REJECTED', updatedAt: now };
  await tx.deposits.update(next);
  await publishAll(tx, [next], 'DEPOSIT_REJECTED');
  return next;
}

/**
 * A credited deposit whose transfer is gone after a reorg deeper than its
 * confirmations: FAILED, and the credit reversed by a new entry. What the
 * workspace has available is taken back; the rest becomes its receivable.
 */
export async function reverse(tx: TxContext, d: Deposit, now: Date, random: RandomSource): Promise<Deposit> {
  const net = d.fee?.netAmount ?? d.amount;
  const feeUnits = d.fee?.feeAmount ?? 0n;
  const [balance] = await tx.ledger.balances(d.workspaceId, [d.network], { network: d.network, asset: d.asset });
  const available = balance ? balance.available : 0n;
  const fromAvailable = available < net ? available : net;
  await tx.ledger.post(
    reverseDepositCredit({
      id: random.uuid(),
      network: d.network,
      at: now,
      depositId: d.id,
      cycle: (await reversals(tx, [d.id])).get(d.id)!,
      workspaceId: d.workspaceId,
      gross: Amount.ofUnits(d.asset, d.amount),
      fee: Amount.ofUnits(d.asset, feeUnits),
      fromAvailable: Amount.ofUnits(d.asset, fromAvailable),
    }),
  );
  const next: Deposit = { ...d, status: 'FAILED', updatedAt: now };
  await tx.deposits.update(next);
  return next;
}
