// Sweeps (ADR 0027): the chain-worker starts a sweep for every wallet whose
// credited, unswept deposits of its asset reached the policy's minimum, and
// moves each open sweep on: a native sweep sends the balance minus its own
// gas; a token sweep first has the gas tank top the address up with just
// enough native currency (gas limit × fee × margin). Every transfer goes
// through the outgoing-transfer pipeline, requested in the same transaction
// as the sweep's change. When the sweep transfer is confirmed its deposits
// become SWEPT (DEPOSIT_SWEPT with the fee object) and the wallet SWEPT when
// nothing of it is left; when it fails its deposits are free to be swept
// again. A gas tank too low for a top-up leaves sweeps waiting, and nothing
// credited is touched; they go on by themselves once it is refilled.
import { inject, injectable } from 'tsyringe';
import { aloneOnError, type ItemError } from '../../domain/chains/chain-port.js';
import { servicePath, depositPath, type ServiceRole } from '../../domain/custody/derivation.js';
import type { Deposit } from '../../domain/deposits/deposit.js';
import { ASSET_SPECS, CHAIN_ASSETS, baseChainOf, nativeAssetOf, sideOf, type Network } from '../../domain/money/networks.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import type { SignerPort } from '../../domain/custody/ports.js';
import { requestTransfer, type EvmFees, type OutgoingTransfer } from '../../domain/transfers/outgoing-transfer.js';
import { TransferRefused, type ChainSender } from '../../domain/transfers/ports.js';
import {
  effectivePolicies,
  nativeSweepAmount,
  policyDue,
  sweepGasBudget,
  topUpAmount,
  type Sweep,
} from '../../domain/transfers/sweep.js';
import { depositSweptData } from '../deposits/deposit-view.js';
import { eachAtOnce } from '../each-at-once.js';
import { TOKENS } from '../tokens.js';
import { TransferOutcomes } from '../transfers/process-transfers.js';
import { planReturns, returnEndedIn } from './return-sweeps.js';
import { advanceTronSweep, type TronSweepDeps } from './tron-sweeps.js';
import { LendEnergy, type EnergyGauges } from '../energy/lend-energy.js';
import type { BurnReason } from '../../domain/energy/energy-plan.js';
import { isEnergyChain } from '../../domain/energy/resources.js';

export interface SweepStepReport {
  started: number;
  toppedUp: number;
  sweeping: number;
  /** Waiting sweeps whose address holds none of the credited asset on the node. */
  nothingOnChain: string[];
  /** The gas tank could not pay for a top-up some sweep needs: what it holds and what it would need. */
  gasTankLow: { address: string; available: bigint; needed: bigint } | null;
  /** Sweeps that could not advance this step for a reason of their own (tried again next step). */
  errors: ItemError[];
  /** TRON: sweeps waiting for lent energy, sweeps sent on it, and sweeps that burn instead though the source is the stake. */
  energyWaiting: number;
  onEnergy: number;
  energyFallbacks: { sweep: string; reason: BurnReason }[];
  /** TRON: stake asked back from loans whose sweep ended without it being taken back then. */
  reclaimed: number;
  /** TRON: the network's lending after the step (null while its source is burn and nothing is lent). */
  energy: EnergyGauges | null;
}

@injectable()
export class RunSweeps {
  private readonly serviceAddresses = new Map<string, Promise<string>>();

  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Signer) private readonly signer: SignerPort,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TransferOutcomes) outcomes: TransferOutcomes,
    @inject(LendEnergy) private readonly energy: LendEnergy,
  ) {
    outcomes.on(['GAS_TOPUP', 'SWEEP', 'UNEXPECTED_RETURN'], (tx, t) => this.onTransferFinal(tx, t));
    // A loan that lands after its sweep ended (it burnt after waiting too long) is taken back at once.
    this.tronDeps = {
      now: () => this.clock.now(),
      transfer: (sweep, fields) => this.transfer(sweep, fields),
      serviceAddress: (network, role) => this.serviceAddress(network, role),
      energy,
    };
  }

  private readonly tronDeps: TronSweepDeps;

  /** The address of one of the network's service accounts (treasury, gas tank, faucet dispenser). */
  serviceAddress(network: Network, role: ServiceRole): Promise<string> {
    const key = `${network}:${role}`;
    let found = this.serviceAddresses.get(key);
    if (!found) {
      found = this.signer.deriveAddress(baseChainOf(network), servicePath(network, role));
      this.serviceAddresses.set(key, found);
    }
    return found;
  }

  /** `concurrency`: sweeps advanced at once (1 when not set), each holding a database connection meanwhile. */
  async step(sender: ChainSender, opts: { batch: number; concurrency?: number }): Promise<SweepStepReport> {
    const report: SweepStepReport = {
      started: 0,
      toppedUp: 0,
      sweeping: 0,
      nothingOnChain: [],
      gasTankLow: null,
      errors: [],
      energyWaiting: 0,
      onEnergy: 0,
      energyFallbacks: [],
      reclaimed: 0,
      energy: null,
    };
    report.started = await this.plan(sender.network, opts.batch);
    if (isEnergyChain(sender)) report.reclaimed = await this.uow.run((tx) => this.energy.tidy(tx, sender.network, opts.batch, sender));
    // Each waiting sweep in its own transaction, locked (another chain-worker skips it meanwhile), several at
    // once: their reads of the node go out together. The fees are read once for the step.
    const ids = await this.uow.read((tx) => tx.sweeps.openIds(sender.network, opts.batch));
    let quote: Promise<EvmFees | null> | undefined;
    const fees = () => (quote ??= sender.feeQuote());
    // The gas tank's balance too, before any sweep holds its row: within a step no transfer of it is marked
    // mined, so what its open transfers commit (read under the row) is still in this balance.
    let tankHolds: Promise<bigint> | undefined;
    const tankBalance = (tank: string) => (tankHolds ??= sender.nativeBalance(tank));
    // TRON's sweeps one at a time: lending energy from the stake is judged sweep by sweep.
    await eachAtOnce(ids, baseChainOf(sender.network) === 'TRON' ? 1 : (opts.concurrency ?? 1), (id) =>
      // A sweep the node cannot price (its token refuses the transfer, an odd answer) waits alone.
      aloneOnError('sweep', id, report.errors, async () => {
        try {
          await this.uow.run(async (tx) => {
            const sweep = await tx.sweeps.lock(id);
            if (sweep?.status === 'WAITING_GAS') await this.advance(tx, sweep, sender, { fees, tankBalance }, report);
          });
        } catch (err) {
          // A return the token refuses (its sender blocked) would wait for ever and hold the wallet's own sweeps:
          // it ends, and its arrival goes back to the operator (LISTED). A sweep's refusal waits, as before.
          if (!(err instanceof TransferRefused) || !(await this.giveBackRefusedReturn(id, err))) throw err;
          report.errors.push({ kind: 'sweep', id, message: `the return is refused (${err.message.slice(0, 200)}): its arrival is LISTED again for the operator` });
        }
      }),
    );
    if (isEnergyChain(sender)) report.energy = await this.uow.run((tx) => this.energy.gauges(tx, sender.network, sender));
    return report;
  }

  /**
   * New sweeps for the wallets that reached their asset's minimum (and whose policy's schedule is due), and
   * a return sweep for each unexpected arrival the operator sends back (whatever the policies).
   */
  private async plan(network: Network, batch: number): Promise<number> {
    const now = this.clock.now();
    return this.uow.run(async (tx) => {
      const returns = await planReturns(tx, network, batch, now, () => this.random.uuid());
      return returns + (await this.planDeposits(tx, network, batch, now));
    });
  }

  /** The deposit sweeps of one plan. */
  private async planDeposits(tx: TxContext, network: Network, batch: number, now: Date): Promise<number> {
    const policies = effectivePolicies(network, CHAIN_ASSETS[baseChainOf(network)], await tx.sweeps.policies()).filter((p) => policyDue(p, now));
    if (policies.length === 0) return 0;
    const candidates = await tx.sweeps.candidates(network, new Map(policies.map((p) => [p.asset, p.minimum])), batch);
    let started = 0;
    for (const c of candidates) {
      const sweep: Sweep = {
        id: this.random.uuid(),
        network,
        asset: c.asset,
        walletId: c.walletId,
        address: c.address,
        addressPath: depositPath(baseChainOf(network), c.derivationAccount, c.derivationIndex),
        status: 'WAITING_GAS',
        depositTotal: c.total,
        topUpTransferId: null,
        sweepTransferId: null,
        failure: null,
        returnOf: null,
        createdAt: now,
        updatedAt: now,
      };
      if (await tx.sweeps.add(sweep, c.depositIds)) started++;
    }
    // A scheduled round ends once every qualifying wallet was started: a full batch leaves the
    // policies due, so the next step goes on with the rest instead of leaving them a whole interval.
    if (candidates.length < batch) for (const p of policies) if (p.intervalSeconds > 0) await tx.sweeps.markRun(network, p.asset, now);
    return started;
  }

  transfer(sweep: Sweep, fields: Pick<OutgoingTransfer, 'kind' | 'asset' | 'from' | 'fromPath' | 'to' | 'amount' | 'gasLimit' | 'feeCap'>): OutgoingTransfer {
    return requestTransfer({ id: this.random.uuid(), network: sweep.network, ownerId: sweep.id, requestedAt: this.clock.now(), ...fields });
  }

  /** A waiting sweep: the sweep transfer when the address can pay its gas, else a top-up when the gas tank can pay for it. */
  private async advance(
    tx: TxContext,
    sweep: Sweep,
    sender: ChainSender,
    step: { fees: () => Promise<EvmFees | null>; tankBalance: (tank: string) => Promise<bigint> },
    report: SweepStepReport,
  ): Promise<void> {
    const network = sweep.network;
    const treasury = await this.serviceAddress(network, 'treasury');
    const now = this.clock.now();
    // What the sweep moves is exactly what its deposits brought (dust below the API's precision included),
    // never the address's whole balance: a deposit still on its way is left for the next sweep, and is
    // never moved by a sweep it is not tied to. Deposits credited since the sweep was planned join it now.
    const tied = sweep.returnOf
      ? { chainTotal: sweep.returnOf.chainAmount, total: sweep.depositTotal }
      : await tx.sweeps.attachConfirmed(sweep.id, sweep.walletId, sweep.asset);
    if (tied.chainTotal === 0n) {
      await this.fail(tx, sweep, 'none of its deposits is credited any more (reversed by a reorg)', now);
      return;
    }
    sweep = { ...sweep, depositTotal: tied.total };
    // A return sweep sends the arrival back to its sender; a sweep, the deposits to the treasury.
    const destination = sweep.returnOf?.to ?? treasury;
    const kind = sweep.returnOf ? 'UNEXPECTED_RETURN' : 'SWEEP';
    if (baseChainOf(network) === 'TRON') return advanceTronSweep(this.tronDeps, tx, sweep, sender, report, destination, tied.chainTotal);
    const native = nativeAssetOf(network);
    if (!native) throw new Error(`${network} has no native asset the service sweeps with`);
    const quote = await step.fees();
    if (!quote) throw new Error(`${network}: sweeps need EVM fees`);
    let balance = await sender.nativeBalance(sweep.address);
    let request: OutgoingTransfer;
    // Native money on the address that is someone's (deposits not swept, unexpected arrivals), other than what
    // this sweep moves, is not its to spend as gas (ADR 0032): the gas tank tops the address up instead.
    const held = await tx.sweeps.nativeHeldAt(network, sweep.address, native);
    if (ASSET_SPECS[sweep.asset].native) {
      const others = held > tied.chainTotal ? held - tied.chainTotal : 0n;
      balance = balance > others ? balance - others : 0n;
      const gasLimit = await sender.gasLimit({ asset: native, from: sweep.address, to: destination, amount: balance });
      const spendable = gasLimit === null ? null : nativeSweepAmount(balance, gasLimit, quote.maxFeePerGas);
      if (gasLimit === null || spendable === null) return; // fees above what the balance can pay: wait for them to fall
      // The deposits less the sweep's own gas when nothing else on the address pays it.
      const amount = spendable < tied.chainTotal ? spendable : tied.chainTotal;
      request = this.transfer(sweep, { kind, asset: native, from: sweep.address, fromPath: sweep.addressPath, to: destination, amount, gasLimit, feeCap: quote.maxFeePerGas });
    } else {
      const tokens = await sender.tokenBalance(sweep.asset, sweep.address);
      if (tokens < tied.chainTotal) {
        // Credited but not on the address (a node behind the scanner's, or funds moved by someone else):
        // the sweep waits and says so, rather than failing and being started again at every step.
        report.nothingOnChain.push(sweep.address);
        return;
      }
      const call = { asset: sweep.asset, from: sweep.address, to: destination, amount: tied.chainTotal };
      const gasLimit = (await sender.gasLimit(call)) ?? 0n;
      balance = balance > held ? balance - held : 0n;
      const need = topUpAmount(sweepGasBudget(gasLimit, quote), balance);
      if (need === 0n) {
        request = this.transfer(sweep, { kind, ...call, fromPath: sweep.addressPath, gasLimit, feeCap: balance / gasLimit });
      } else {
        const tank = await this.serviceAddress(network, 'gasTank');
        const topUp = this.transfer(sweep, {
          kind: 'GAS_TOPUP',
          asset: native,
          from: tank,
          fromPath: servicePath(network, 'gasTank'),
          to: sweep.address,
          amount: need,
          gasLimit: await sender.gasLimit({ asset: native, from: tank, to: sweep.address, amount: need }),
          feeCap: null,
        });
        // What the tank can still pay, judged and spent one sweep at a time (sweeps advance concurrently); no
        // call to the node while its row is held.
        const holds = await step.tankBalance(tank);
        await tx.transfers.lockOutflow(network, tank);
        // A top-up requested by another sweep of this step is not signed yet: its gas is reserved at today's quote.
        const available = holds - (await tx.transfers.committedOutflow(network, tank, native, quote.maxFeePerGas));
        const needed = need + (topUp.gasLimit ?? 0n) * quote.maxFeePerGas;
        if (available < needed) {
          report.gasTankLow = { address: tank, available, needed };
          await tx.sweeps.update({ ...sweep, updatedAt: now });
          return; // nothing requested: the sweep waits for the gas tank to be refilled
        }
        await tx.transfers.add(topUp);
        await tx.sweeps.update({ ...sweep, status: 'TOPPING_UP', topUpTransferId: topUp.id, updatedAt: now });
        report.toppedUp++;
        return;
      }
    }
    await tx.transfers.add(request);
    await tx.sweeps.update({ ...sweep, status: 'SWEEPING', sweepTransferId: request.id, updatedAt: now });
    report.sweeping++;
  }

  /** A return sweep its token refuses: FAILED, its arrival LISTED again; false when `id` is no such return. */
  private giveBackRefusedReturn(id: string, err: TransferRefused): Promise<boolean> {
    return this.uow.run(async (tx) => {
      const sweep = await tx.sweeps.lock(id);
      if (!sweep?.returnOf || sweep.status !== 'WAITING_GAS') return false;
      const now = this.clock.now();
      await this.fail(tx, sweep, `the return is refused: ${err.message.slice(0, 500)}`, now);
      await returnEndedIn(tx, sweep.returnOf.arrivalId, null, now);
      return true;
    });
  }

  private async fail(tx: TxContext, sweep: Sweep, reason: string, at: Date): Promise<void> {
    await tx.sweeps.update({ ...sweep, status: 'FAILED', failure: reason, updatedAt: at });
    await tx.sweeps.releaseDeposits(sweep.id);
  }

  /** Inside the transaction that ends a top-up or sweep transfer. */
  private async onTransferFinal(tx: TxContext, t: OutgoingTransfer): Promise<void> {
    const sweep = await tx.sweeps.byTransfer(t.id);
    if (!sweep) return;
    const now = this.clock.now();
    if (t.kind === 'GAS_TOPUP') {
      // Confirmed or not, the waiting sweep looks at the address's balance again.
      if (sweep.status === 'TOPPING_UP') await tx.sweeps.update({ ...sweep, status: 'WAITING_GAS', updatedAt: now });
      return;
    }
    if (sweep.status !== 'SWEEPING') return;
    // Confirmed or failed, the sweep's transaction is final: energy lent to its address is asked back now.
    if (baseChainOf(sweep.network) === 'TRON') await this.energy.purposeDone(tx, 'SWEEP', sweep.id);
    if (t.status === 'FAILED') {
      await this.fail(tx, sweep, `sweep transfer failed: ${t.failure ?? 'unknown'}`, now);
      if (sweep.returnOf) await returnEndedIn(tx, sweep.returnOf.arrivalId, null, now);
      return;
    }
    if (sweep.returnOf) {
      await returnEndedIn(tx, sweep.returnOf.arrivalId, t.id, now);
      await tx.sweeps.update({ ...sweep, status: 'SWEPT', updatedAt: now });
      return;
    }
    const ids = await tx.sweeps.markSwept(sweep.id, now);
    const deposits: Deposit[] = [];
    for (const id of ids) {
      const d = await tx.deposits.lockById(id); // one query at a time on the transaction's connection
      if (d) deposits.push(d);
    }
    await tx.events.publishMany(
      deposits.map((d) => ({ workspaceId: d.workspaceId, side: sideOf(d.network), event: 'DEPOSIT_SWEPT' as const, data: depositSweptData(d) })),
    );
    await tx.sweeps.update({ ...sweep, status: 'SWEPT', updatedAt: now });
    await tx.sweeps.markWalletSwept(sweep.walletId);
  }
}
