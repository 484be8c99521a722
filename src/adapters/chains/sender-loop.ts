// The chain-worker's sending loop: per network that can send, every
// `intervalMs` one sweep step (RunSweeps), one withdrawal step
// (SendWithdrawals), one faucet step (SendDrips) and one pass of the outgoing-transfer pipeline
// (ProcessTransfers). Logs what moved, keeps the sending metrics, and warns
// ONCE when the gas tank runs too low for a top-up (gas_tank_low stays 1
// until a top-up goes through again), the treasury for a withdrawal
// (treasury_short likewise) or the faucet dispenser for a drip.
import type { Logger } from 'pino';
import { WakeableSleep } from './wakeable-sleep.js';
import { ChainUnavailableError } from '../../domain/chains/chain-port.js';
import { NATIVE_CURRENCY, baseChainOf, type Network } from '../../domain/money/networks.js';
import type { ChainSender } from '../../domain/transfers/ports.js';
import type { ProcessTransfers, TransferStepOptions } from '../../application/transfers/process-transfers.js';
import type { RunSweeps, SweepStepReport } from '../../application/sweeps/run-sweeps.js';
import type { SendWithdrawals } from '../../application/withdrawals/send-withdrawals.js';
import type { SendDrips } from '../../application/faucet/send-drips.js';
import type { SendingMetrics } from '../metrics/metrics.js';

export interface SenderLoopOptions extends TransferStepOptions {
  intervalMs: number;
  maxBackoffMs: number;
}

/** Whole units of a native base amount (18 decimals on EVM, 6 on TRON), for metrics only. */
const whole = (units: bigint, decimals: number): number => Number(units) / 10 ** decimals;

/** Between two steps while there is new work: just enough to let the rest of the process breathe. */
const BUSY_PAUSE_MS = 20;

/** Transfers another item waits for: once one is final, that item can move on at the next step. */
const AWAITED_KINDS: ReadonlySet<string> = new Set(['GAS_TOPUP', 'ENERGY_DELEGATE']);

/**
 * Whether the next step follows at once: a step that picked up, requested or signed something, or that saw a
 * transfer another item waits for become final (a sweep's top-up, a loan of energy), so that a backlog drains at
 * the speed of the node and the database rather than one step per interval.
 */
export function workFollows(step: {
  sweeps: Pick<SweepStepReport, 'toppedUp' | 'sweeping' | 'reclaimed'>;
  withdrawals: { pickedUp: number };
  drips: { requested: number };
  transfers: { signed: number; confirmed: readonly { kind: string }[]; failed: readonly { kind: string }[] };
}): boolean {
  const { sweeps, withdrawals, drips, transfers } = step;
  if (withdrawals.pickedUp > 0 || drips.requested > 0 || transfers.signed > 0 || sweeps.toppedUp > 0 || sweeps.sweeping > 0 || sweeps.reclaimed > 0) return true;
  return [...transfers.confirmed, ...transfers.failed].some((t) => AWAITED_KINDS.has(t.kind));
}

/** While nothing moves, the gas tank's balance (a gauge) is read from the node at most this often: not one call per step. */
export const TANK_BALANCE_EVERY_MS = 15_000;

/** Whether this step reads the gas tank's balance: the first time, after a step that moved or ended a transfer, or once the last read is old. */
export function tankBalanceDue(lastReadAt: number | undefined, now: number, moved: boolean): boolean {
  return moved || lastReadAt === undefined || now - lastReadAt >= TANK_BALANCE_EVERY_MS;
}

export class SenderLoop {
  private running = false;
  private readonly pause = new WakeableSleep();
  private loops: Promise<void>[] = [];
  private readonly tankLow = new Map<Network, boolean>();
  private readonly treasuryShort = new Map<Network, boolean>();
  /** Networks whose payouts were held at the last step (a line when that changes). */
  private readonly held = new Map<Network, boolean>();
  private readonly dispenserShort = new Map<Network, boolean>();
  /** Per network, the sweeps, withdrawals and transfers the last step could not advance, with why (logged once per reason). */
  private readonly stuck = new Map<Network, Map<string, string>>();
  /** Addresses already warned about (one warning each, not one per step). */
  private readonly warnedEmpty = new Set<string>();
  /** When each network's gas tank balance was last read for its gauge. */
  private readonly tankReadAt = new Map<Network, number>();

  constructor(
    private readonly sweeps: RunSweeps,
    private readonly transfers: ProcessTransfers,
    private readonly withdrawals: SendWithdrawals,
    private readonly drips: SendDrips,
    private readonly senders: ChainSender[],
    private readonly opts: SenderLoopOptions,
    private readonly logger: Logger,
    private readonly metrics: SendingMetrics,
  ) {}

  start(): void {
    this.running = true;
    // TRON's energy counters start at 0 for every reason, so that an alert on their rise has a series before the first.
    for (const { network } of this.senders.filter((s) => baseChainOf(s.network) === 'TRON')) {
      for (const reason of ['not_enough_stake', 'waited_too_long', 'energy_account_low'] as const) this.metrics.energyFallbacks.inc({ network, reason }, 0);
      this.metrics.energyLent.inc({ network }, 0);
      this.metrics.energyReclaimed.inc({ network }, 0);
    }
    this.loops = this.senders.map((s) => this.loop(s));
  }

  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.pause.wakeAll();
    await Promise.race([Promise.all(this.loops), new Promise((r) => setTimeout(r, graceMs))]);
  }

  private sleep(ms: number): Promise<void> {
    return this.pause.sleep(ms);
  }


  /** Records whether `address` is short now; logs and returns true when that changed. */
  private shortage(
    state: Map<Network, boolean>,
    network: Network,
    short: { address: string; asset: string; available: bigint; needed: bigint } | null,
    role: string,
    log: Logger,
    messages: { short: string; funded: string },
  ): boolean {
    if ((short !== null) === (state.get(network) ?? false)) return false;
    state.set(network, short !== null);
    if (short) log.warn({ [role]: short.address, asset: short.asset, available: short.available.toString(), needed: short.needed.toString() }, messages.short);
    else log.info(messages.funded);
    return true;
  }

  private async loop(sender: ChainSender): Promise<void> {
    const network = sender.network;
    const log = this.logger.child({ network });
    const { decimals } = NATIVE_CURRENCY[baseChainOf(network)];
    let failures = 0;
    this.metrics.gasTankLow.set({ network }, 0);
    this.metrics.treasuryShort.set({ network }, 0);
    while (this.running) {
      try {
        const took: Record<string, number> = {};
        const timed = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
          const t0 = performance.now();
          try {
            return await run();
          } finally {
            took[name] = Math.round(performance.now() - t0);
          }
        };
        const sweeps = await timed('sweeps', () => this.sweeps.step(sender, { batch: this.opts.batch, concurrency: this.opts.concurrency }));
        const withdrawals = await timed('withdrawals', () => this.withdrawals.step(sender, { batch: this.opts.batch }));
        // Said at once: a later call of the step failing must not lose what was failed for good.
        if (withdrawals.refused > 0) log.warn({ refused: withdrawals.refused }, 'withdrawals failed: the token contract refuses their transfer (the reason is on each withdrawal)');
        const drips = await timed('drips', () => this.drips.step(sender, { batch: this.opts.batch }));
        if (drips.refused > 0) log.warn({ refused: drips.refused }, 'faucet drips failed: the token contract refuses their transfer');
        const transfers = await timed('transfers', () => this.transfers.step(sender, this.opts));
        // A service address too low to pay: one warning when it starts, one line when it ends.
        const treasuryChanged = this.shortage(this.treasuryShort, network, withdrawals.treasuryShort, 'treasury', log, {
          short: 'treasury too low for the next withdrawal: withdrawals wait until it is funded (none fails)',
          funded: 'treasury funded again: withdrawals resume',
        });
        if (treasuryChanged) this.metrics.treasuryShort.set({ network }, withdrawals.treasuryShort ? 1 : 0);
        if (withdrawals.held !== (this.held.get(network) ?? false)) {
          this.held.set(network, withdrawals.held);
          if (withdrawals.held) {
            log.error({ reason: withdrawals.heldReason }, 'payouts held after a difference between the books and the chain: new withdrawals wait until an operator runs ops payouts resume');
          }
          else log.info('payouts resumed');
        }
        this.shortage(this.dispenserShort, network, drips.dispenserShort, 'dispenser', log, {
          short: 'faucet dispenser too low for the next drip: drips wait until it is funded (none fails)',
          funded: 'faucet dispenser funded again: drips resume',
        });
        // One item's trouble holds only that item: logged once per reason, tried again each step.
        const stuck = new Map([...sweeps.errors, ...withdrawals.errors, ...drips.errors, ...transfers.errors].map((e) => [`${e.kind}:${e.id}`, e]));
        for (const [key, e] of stuck) {
          if (this.stuck.get(network)?.get(key) !== e.message) log.warn({ [e.kind]: e.id, reason: e.message }, `a ${e.kind} could not advance; it is tried again each step, the others go on`);
        }
        this.stuck.set(network, new Map([...stuck].map(([key, e]) => [key, e.message])));
        failures = 0;
        const tank = await this.sweeps.serviceAddress(network, 'gasTank');
        const busy = workFollows({ sweeps, withdrawals, drips, transfers });
        const moved = busy || transfers.confirmed.length > 0 || transfers.failed.length > 0;
        if (tankBalanceDue(this.tankReadAt.get(network), Date.now(), moved)) {
          this.metrics.gasTankBalance.set({ network }, whole(await sender.nativeBalance(tank), decimals));
          this.tankReadAt.set(network, Date.now());
        }
        const low = sweeps.gasTankLow !== null;
        if (low !== (this.tankLow.get(network) ?? false)) {
          this.tankLow.set(network, low);
          this.metrics.gasTankLow.set({ network }, low ? 1 : 0);
          if (sweeps.gasTankLow) {
            log.warn(
              { gasTank: sweeps.gasTankLow.address, available: sweeps.gasTankLow.available.toString(), needed: sweeps.gasTankLow.needed.toString() },
              'gas tank too low for a sweep top-up: sweeps wait until it is refilled (deposits still confirm and credit)',
            );
          } else {
            log.info({ gasTank: tank }, 'gas tank refilled: sweeps resume');
          }
        }
        const empty = sweeps.nothingOnChain.filter((a) => !this.warnedEmpty.has(a));
        for (const a of empty) this.warnedEmpty.add(a);
        if (empty.length > 0) log.warn({ addresses: empty.slice(0, 20), count: empty.length }, 'credited deposits not on their address at the node: those sweeps wait');
        if (sweeps.energy) {
          this.metrics.energyAvailable.set({ network }, Number(sweeps.energy.available));
          this.metrics.energyLoansOpen.set({ network }, sweeps.energy.open);
          this.metrics.energyTakeBacksFailing.set({ network }, sweeps.energy.failing);
        }
        const fallbacks = [...sweeps.energyFallbacks.map((f) => ({ purpose: 'SWEEP', id: f.sweep, reason: f.reason })), ...withdrawals.energyFallbacks, ...drips.energyFallbacks];
        for (const f of fallbacks) {
          this.metrics.energyFallbacks.inc({ network, reason: f.reason });
          log.info(
            { purpose: f.purpose.toLowerCase(), id: f.id, reason: f.reason },
            'a TRON transfer burns TRX for its energy: the stake cannot lend it now (not_enough_stake), the loan came too late (waited_too_long), or the energy account lacks TRX for the bytes of a loan (energy_account_low)',
          );
        }
        for (const t of [...transfers.confirmed, ...transfers.failed]) {
          if (t.status === 'CONFIRMED' && t.kind === 'ENERGY_DELEGATE') this.metrics.energyLent.inc({ network });
          if (t.status === 'CONFIRMED' && t.kind === 'ENERGY_RECLAIM') this.metrics.energyReclaimed.inc({ network });
          if (t.status === 'CONFIRMED' && t.kind === 'SWEEP' && network.startsWith('TRON')) this.metrics.sweepTrxBurnt.observe({ network }, whole(t.feePaid ?? 0n, decimals));
          const seconds = (Date.now() - t.requestedAt.getTime()) / 1000;
          if (t.status === 'CONFIRMED') this.metrics.requestToConfirmed.observe({ network, kind: t.kind }, seconds);
          if (t.broadcastAt) this.metrics.requestToBroadcast.observe({ network, kind: t.kind }, (t.broadcastAt.getTime() - t.requestedAt.getTime()) / 1000);
          if (t.feePaid) this.metrics.gasSpent.inc({ network }, whole(t.feePaid, decimals));
          log.info(
            { transfer: t.id, kind: t.kind, status: t.status, txid: t.included?.txid ?? null, feePaid: t.feePaid?.toString() ?? null, failure: t.failure },
            t.status === 'CONFIRMED' ? 'transfer confirmed' : 'transfer failed',
          );
        }
        if (sweeps.started || sweeps.toppedUp || sweeps.sweeping || withdrawals.pickedUp || drips.requested || transfers.signed || transfers.replaced || transfers.resigned) {
          log.info(
            {
              withdrawalsPickedUp: withdrawals.pickedUp,
              dripItems: drips.requested,
              sweepsStarted: sweeps.started,
              topUps: sweeps.toppedUp,
              sweepTransfers: sweeps.sweeping,
              signed: transfers.signed,
              replaced: transfers.replaced,
              resigned: transfers.resigned,
              stepMs: took,
            },
            'sending',
          );
        }
        await this.sleep(busy ? BUSY_PAUSE_MS : this.opts.intervalMs);
      } catch (err) {
        failures++;
        const delay = Math.min(this.opts.maxBackoffMs, this.opts.intervalMs * 2 ** Math.min(failures, 10));
        const kind = err instanceof ChainUnavailableError ? err.kind : 'other';
        log.warn({ err, kind, failures, retryInMs: delay }, 'sending step failed; every transfer stays as recorded');
        await this.sleep(delay);
      }
    }
  }
}
