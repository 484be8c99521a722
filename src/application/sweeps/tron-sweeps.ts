// A TRON sweep's step (USDT_TRON; TRX is not an asset of the API), from
// run-sweeps.ts. The address sweeps once it holds what the transfer will
// burn; until then the gas tank sends it TRX, which also activates an
// address that never was (the activation is the gas tank's cost, part of the
// top-up's fee). With the network's energy source set to `stake` (ADR 0035)
// the energy is lent to the address instead (LendEnergy): it then needs only
// its bandwidth, and the sweep waits for the loan within the operator's
// longest wait, burning as before when the stake is short or the loan late.
import { servicePath, type ServiceRole } from '../../domain/custody/derivation.js';
import type { EnergyDelegation } from '../../domain/energy/delegation.js';
import { energyAvailable, isEnergyChain } from '../../domain/energy/resources.js';
import { gasCurrencyOf, type Network } from '../../domain/money/networks.js';
import type { TxContext } from '../../domain/ports.js';
import type { OutgoingTransfer } from '../../domain/transfers/outgoing-transfer.js';
import type { ChainSender } from '../../domain/transfers/ports.js';
import { tronSweepBudget, withMargin, type Sweep } from '../../domain/transfers/sweep.js';
import type { LendEnergy } from '../energy/lend-energy.js';
import type { SweepStepReport } from './run-sweeps.js';

export interface TronSweepDeps {
  now(): Date;
  transfer(sweep: Sweep, fields: Pick<OutgoingTransfer, 'kind' | 'asset' | 'from' | 'fromPath' | 'to' | 'amount' | 'gasLimit' | 'feeCap'>): OutgoingTransfer;
  serviceAddress(network: Network, role: ServiceRole): Promise<string>;
  energy: LendEnergy;
}

export async function advanceTronSweep(
  d: TronSweepDeps,
  tx: TxContext,
  sweep: Sweep,
  sender: ChainSender,
  report: SweepStepReport,
  destination: string,
  amount: bigint,
): Promise<void> {
  const network = sweep.network;
  const now = d.now();
  if ((await sender.tokenBalance(sweep.asset, sweep.address)) < amount) {
    report.nothingOnChain.push(sweep.address);
    return;
  }
  const call = { asset: sweep.asset, from: sweep.address, to: destination, amount };
  const burn = await sender.burnEstimate(call);
  if (!burn) throw new Error(`${network}: TRON sweeps need a burn estimate`);
  const budget = tronSweepBudget(burn);
  // What the address must hold to send, and what a top-up brings it to: the whole burn, or with lent energy its bytes.
  let required = budget.required;
  let topUpTo = budget.topUpTo;
  let loan: EnergyDelegation | null = null;
  if (isEnergyChain(sender) && burn.energyUnits !== undefined && burn.energyUnits > 0n) {
    // A loan only for a sweep that can go once it lands: an address without the TRX for its bytes needs the gas
    // tank first, and a loan lent meanwhile would only come back unused (its bytes paid for nothing).
    const held = await sender.nativeBalance(sweep.address);
    if (held < burn.bandwidth) {
      const tank = await gasTankFor(d, tx, sender, sweep, withMargin(burn.bandwidth) - held);
      if ('short' in tank) {
        report.gasTankLow = tank.short;
        await tx.sweeps.update({ ...sweep, updatedAt: now });
        return;
      }
    }
    const ready = await d.energy.prepare(tx, { purpose: 'SWEEP', purposeId: sweep.id, network, receiver: sweep.address, estimate: burn.energyUnits, burnEquivalent: burn.energy }, sender);
    if (ready.kind === 'waiting') {
      report.energyWaiting++;
      await tx.sweeps.update({ ...sweep, updatedAt: now });
      return;
    }
    if (ready.kind === 'burn' && ready.first) report.energyFallbacks.push({ sweep: sweep.id, reason: ready.reason });
    if (ready.kind === 'activate') {
      // Energy cannot be lent to an account that does not exist: a top-up of its bytes activates it first.
      required = burn.bandwidth;
      topUpTo = withMargin(burn.bandwidth);
    }
    if (ready.kind === 'lent') {
      // What the chain says the address holds now, not what the loan meant: an estimate that rose since, or a usage
      // left by an earlier loan, is burnt from the address's TRX, which must hold it with its bytes. The sweep's
      // fee_limit covers burning the whole estimate.
      const resources = await sender.resources(sweep.address);
      const short = resources ? burn.energyUnits - energyAvailable(resources) : burn.energyUnits;
      const price = burn.energy / burn.energyUnits;
      required = burn.bandwidth + (short > 0n ? short * price : 0n);
      topUpTo = withMargin(required);
    }
    if (ready.kind === 'lent') loan = ready.loan;
  }
  const balance = await sender.nativeBalance(sweep.address);
  if (balance >= required && balance > 0n) {
    const request = d.transfer(sweep, { kind: sweep.returnOf ? 'UNEXPECTED_RETURN' : 'SWEEP', ...call, fromPath: sweep.addressPath, gasLimit: null, feeCap: budget.feeLimit });
    await tx.transfers.add(request);
    await tx.sweeps.update({ ...sweep, status: 'SWEEPING', sweepTransferId: request.id, updatedAt: now });
    report.sweeping++;
    if (loan) {
      await d.energy.used(tx, loan, request.id);
      report.onEnergy++;
    }
    return;
  }
  const need = topUpTo > balance ? topUpTo - balance : 1n;
  const tank = await gasTankFor(d, tx, sender, sweep, need);
  if ('short' in tank) {
    report.gasTankLow = tank.short;
    await tx.sweeps.update({ ...sweep, updatedAt: now });
    return;
  }
  // Its fee cap is its own burn, which the gas tank's committed outflow reserves until it is final.
  const topUp = d.transfer(sweep, {
    kind: 'GAS_TOPUP',
    asset: gasCurrencyOf(network),
    from: tank.address,
    fromPath: servicePath(network, 'gasTank'),
    to: sweep.address,
    amount: need,
    gasLimit: null,
    feeCap: tank.fee,
  });
  await tx.transfers.add(topUp);
  await tx.sweeps.update({ ...sweep, status: 'TOPPING_UP', topUpTransferId: topUp.id, updatedAt: now });
  report.toppedUp++;
}

type GasTankShort = NonNullable<SweepStepReport['gasTankLow']>;

/** What a top-up of `need` sun to the sweep's address costs the gas tank (its fee: bytes, and the activation of a new address), or what it lacks. */
async function gasTankFor(d: TronSweepDeps, tx: TxContext, sender: ChainSender, sweep: Sweep, need: bigint): Promise<{ address: string; fee: bigint } | { short: GasTankShort }> {
  const network = sweep.network;
  const tank = await d.serviceAddress(network, 'gasTank');
  const trx = gasCurrencyOf(network);
  const topUpBurn = await sender.burnEstimate({ asset: trx, from: tank, to: sweep.address, amount: need });
  const available = (await sender.nativeBalance(tank)) - (await tx.transfers.committedOutflow(network, tank, trx));
  const fee = topUpBurn ? topUpBurn.bandwidth + topUpBurn.activation : 0n;
  return available < need + fee ? { short: { address: tank, available, needed: need + fee } } : { address: tank, fee };
}

