// Return sweeps (issue 31, ADR 0032): an unexpected arrival the operator
// sends back to its sender goes by the sweep machinery (one open sweep per
// wallet, the gas tank's top-up, the one transfer pipeline), with its sender
// as destination. What RunSweeps needs of them apart from sweeps: planning
// one for each arrival waiting to go back, and telling the arrival how its
// return ended.
import { depositPath } from '../../domain/custody/derivation.js';
import { returned, returnFailed } from '../../domain/deposits/unexpected-deposit.js';
import { Amount } from '../../domain/money/amount.js';
import { baseChainOf, type Network } from '../../domain/money/networks.js';
import type { TxContext } from '../../domain/ports.js';
import type { Sweep } from '../../domain/transfers/sweep.js';

/** A return sweep for each RETURNING arrival of the network with none open; how many were started. */
export async function planReturns(tx: TxContext, network: Network, batch: number, now: Date, newId: () => string): Promise<number> {
  let started = 0;
  for (const r of await tx.unexpected.returnsDue(network, batch)) {
    const a = r.arrival;
    const sweep: Sweep = {
      id: newId(),
      network,
      asset: a.asset,
      walletId: a.walletId,
      address: a.toAddress,
      addressPath: depositPath(baseChainOf(network), r.derivationAccount, r.derivationIndex),
      status: 'WAITING_GAS',
      depositTotal: Amount.fromChainUnits(a.asset, a.chainAmount).units,
      topUpTransferId: null,
      sweepTransferId: null,
      failure: null,
      returnOf: { arrivalId: a.id, to: a.fromAddress, chainAmount: a.chainAmount },
      createdAt: now,
      updatedAt: now,
    };
    // One open sweep per wallet: while one of its deposits is swept, the return waits for the next step.
    if (await tx.sweeps.add(sweep, [])) started++;
  }
  return started;
}

/**
 * The arrival's return ended: RETURNED by the confirmed transfer `transferId`; with none (failed, or
 * refused before it was sent), LISTED again for the operator, as the same return would fail again.
 */
export async function returnEndedIn(tx: TxContext, arrivalId: string, transferId: string | null, at: Date): Promise<void> {
  const arrival = await tx.unexpected.lock(arrivalId);
  if (arrival?.status !== 'RETURNING') return;
  await tx.unexpected.update(transferId === null ? returnFailed(arrival) : returned(arrival, transferId, at));
}
