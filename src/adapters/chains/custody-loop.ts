// The chain-worker's custody loop (issue 31, ADR 0032): every `intervalMs`
// one pass over the treasury policies, then one forwarding step per network
// that can send (ForwardSurplus). A cold address change waiting for its
// cooling-off is announced at once, in one warning line (once per change) and
// the metric treasury_cold_address_change_pending{network,asset}; one coming
// into force is said too. Each forward is a line; a surplus that cannot go
// (short of gas, refused) is said once per reason. A treasury below its floor
// asks for a refill (treasury_refill_needed{network,asset} = 1, one line with
// the amount to bring back to the target float); each refill read on chain
// (RecognizeRefills) is booked and said. Every 30 s cold storage is read as
// booked and on the node (treasury_cold_booked, treasury_cold_on_chain).
import type { Logger } from 'pino';
import type { ForwardSurplus } from '../../application/custody/forward-surplus.js';
import type { RecognizeRefills } from '../../application/custody/recognize-refills.js';
import type { ReconcileCold } from '../../application/custody/reconcile-cold.js';
import type { ChainPort } from '../../domain/chains/chain-port.js';
import type { WatchTreasuryPolicies } from '../../application/custody/watch-treasury-policies.js';
import { isNodeDown } from '../../domain/chains/chain-port.js';
import { Amount } from '../../domain/money/amount.js';
import type { ChainSender } from '../../domain/transfers/ports.js';
import type { CustodyMetrics } from '../metrics/metrics.js';
import { WakeableSleep } from './wakeable-sleep.js';

/** How often cold storage is read for treasury_cold_booked and treasury_cold_on_chain. */
const COLD_READ_MS = 30_000;

export interface CustodyLoopOptions {
  intervalMs: number;
}

export class CustodyLoop {
  private running = false;
  private readonly pause = new WakeableSleep();
  private loop: Promise<void> | null = null;
  /** Pending changes already announced, as network|asset|requested_at. */
  private readonly announced = new Set<string>();

  /** Surpluses that could not go, as network|asset|why, said once each. */
  private readonly blocked = new Set<string>();
  /** Refills asked for, as network|asset: said when asked and when no longer needed. */
  private readonly refillAsked = new Set<string>();
  /** When cold storage was last read for its metrics (ms). */
  private coldReadAt = 0;

  constructor(
    private readonly watch: WatchTreasuryPolicies,
    private readonly forward: ForwardSurplus,
    private readonly refills: RecognizeRefills,
    private readonly cold: ReconcileCold,
    private readonly senders: readonly (ChainSender & ChainPort)[],
    private readonly opts: CustodyLoopOptions,
    private readonly logger: Logger,
    private readonly metrics: CustodyMetrics,
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.pause.wakeAll();
    await Promise.race([this.loop, new Promise((r) => setTimeout(r, graceMs))]);
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.pass();
      } catch (err) {
        this.logger.warn({ err }, 'custody: the treasury policies could not be read; trying again');
      }
      await this.pause.sleep(this.opts.intervalMs);
    }
  }

  /** One pass: what is pending is announced (once each) and counted; what came into force is said. */
  async pass(): Promise<void> {
    const watched = await this.watch.execute();
    const seen = new Set<string>();
    for (const w of watched) {
      const labels = { network: w.network, asset: w.asset };
      this.metrics.coldAddressChangePending.set(labels, w.pending ? 1 : 0);
      if (w.cameIntoForce) {
        this.logger.warn({ ...labels, coldAddress: w.cameIntoForce }, `custody: the cold address of ${w.network} ${w.asset} is now ${w.cameIntoForce} (its cooling-off ended)`);
      }
      if (!w.pending) continue;
      const key = `${w.network}|${w.asset}|${w.pending.requestedAt.toISOString()}|${w.pending.coldAddress}`;
      seen.add(key);
      if (this.announced.has(key)) continue;
      this.announced.add(key);
      this.logger.warn(
        { ...labels, coldAddress: w.pending.coldAddress, replaces: w.coldAddress, effectiveAt: w.pending.effectiveAt.toISOString() },
        `custody: SECURITY: the cold address of ${w.network} ${w.asset} is to change to ${w.pending.coldAddress} at ${w.pending.effectiveAt.toISOString()}; if no one you trust asked for this, cancel it now: ops treasury policy cancel --chain ${w.network} --asset ${w.asset}`,
      );
    }
    for (const key of this.announced) if (!seen.has(key)) this.announced.delete(key);
    if (!watched.some((w) => w.coldAddress !== null)) return;
    for (const sender of this.senders) await this.forwardOn(sender);
    await this.readCold();
  }

  /** Cold storage as booked and as read on the node (every COLD_READ_MS: one balance read per cold address). */
  private async readCold(): Promise<void> {
    if (Date.now() - this.coldReadAt < COLD_READ_MS) return;
    this.coldReadAt = Date.now();
    try {
      for (const c of (await this.cold.execute(this.senders)).cold) {
        const labels = { network: c.chain, asset: c.asset };
        this.metrics.coldBooked.set(labels, Number(c.booked));
        if (c.on_chain !== null) this.metrics.coldOnChain.set(labels, Number(c.on_chain));
      }
    } catch (err) {
      if (!isNodeDown(err)) throw err;
      this.logger.debug({ err }, 'custody: a cold address could not be read; the metric keeps its last reading');
    }
  }

  private async forwardOn(sender: ChainSender & ChainPort): Promise<void> {
    const network = sender.network;
    let report;
    try {
      for (const r of (await this.refills.step(sender)).booked) {
        this.metrics.refills.inc({ network, asset: r.asset });
        this.logger.info({ network, asset: r.asset, amount: Amount.ofUnits(r.asset, r.amount).toString(), txid: r.txid, from: r.from }, `custody: a refill of ${Amount.ofUnits(r.asset, r.amount).toString()} ${r.asset} from the cold address reached ${network}'s treasury (${r.txid})`);
      }
      report = await this.forward.step(sender);
    } catch (err) {
      if (!isNodeDown(err)) throw err;
      this.logger.debug({ network, err }, 'custody: the node is down; the surplus waits');
      return;
    }
    for (const h of report.hot) {
      const labels = { network, asset: h.asset };
      this.metrics.hotFloat.set(labels, Number(Amount.ofUnits(h.asset, h.held).toString()));
      this.metrics.refillNeeded.set(labels, h.refill > 0n ? 1 : 0);
      const key = `${network}|${h.asset}`;
      if (h.refill > 0n && !this.refillAsked.has(key)) {
        this.refillAsked.add(key);
        const amount = Amount.ofUnits(h.asset, h.refill).toString();
        this.logger.warn(
          { ...labels, amount, held: Amount.ofUnits(h.asset, h.held).toString(), reserved: Amount.ofUnits(h.asset, h.reserved).toString() },
          `custody: REFILL NEEDED: ${network}'s treasury is below its floor; send ${amount} ${h.asset} from the cold address to bring it back to its float of ${Amount.ofUnits(h.asset, h.targetFloat).toString()} (ops treasury status)`,
        );
      } else if (h.refill === 0n && this.refillAsked.delete(key)) {
        this.logger.info(labels, `custody: ${network}'s treasury of ${h.asset} is back above its floor`);
      }
    }
    for (const f of report.forwarded) {
      this.metrics.forwards.inc({ network, asset: f.asset });
      this.logger.info({ network, asset: f.asset, amount: Amount.ofUnits(f.asset, f.amount).toString(), to: f.to, transferId: f.transferId }, `custody: forwarding ${Amount.ofUnits(f.asset, f.amount).toString()} ${f.asset} of ${network}'s treasury to its cold address ${f.to}`);
    }
    // Said once per kind of obstacle, and again once it has cleared and comes back.
    const blockedNow = new Set(report.blocked.map((b) => `${network}|${b.asset}|${b.kind}`));
    for (const key of this.blocked) if (key.startsWith(`${network}|`) && !blockedNow.has(key)) this.blocked.delete(key);
    for (const b of report.blocked) {
      const key = `${network}|${b.asset}|${b.kind}`;
      if (this.blocked.has(key)) continue;
      this.blocked.add(key);
      this.logger.warn({ network, asset: b.asset, kind: b.kind, why: b.why }, `custody: ${network}'s treasury cannot forward its surplus of ${b.asset} now: ${b.why}`);
    }
    for (const e of report.errors) this.logger.warn({ network, item: e.id, err: e.message }, 'custody: a forward could not be requested; trying again');
  }
}
