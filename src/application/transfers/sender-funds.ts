// Whether a service address (the treasury, the faucet dispenser) can pay one
// more transfer now: the asset, beyond what its transfers on their way will
// still move, and the gas at the node's current fees. Asked before a transfer
// is requested, so that a short sender leaves its payouts waiting instead of
// failing them. The node's dry run also says whether the token contract would
// refuse the transfer at all (a blocked destination, a paused token).
import { gasCurrencyOf, type Asset } from '../../domain/money/networks.js';
import type { TxContext } from '../../domain/ports.js';
import { TransferRefused, type ChainSender, type TransferCall, type TronBurn } from '../../domain/transfers/ports.js';
import { withMargin } from '../../domain/transfers/sweep.js';

/** The sender lacks the gas: nothing else of the network can go either. */
export const GAS = 'gas';

export type SenderFunds =
  /** It can pay: what the transfer should carry. */
  | { kind: 'ok'; gasLimit: bigint | null; feeCap: bigint | null; burn: TronBurn | null }
  /** The token contract refuses it in the node's dry run: sending would only burn gas. */
  | { kind: 'refused'; reason: string }
  /** It cannot pay now: of what (`lacking`: the asset, or GAS), what it holds and what it needs, in chain units. */
  | { kind: 'short'; lacking: string; asset: string; available: bigint; needed: bigint };

export async function senderFunds(tx: TxContext, sender: ChainSender, call: TransferCall): Promise<SenderFunds> {
  const network = sender.network;
  // What the sender can still pay is judged, and the transfer it allows requested, by one unit of work at a
  // time (a sweep's top-up from the gas tank may be judged meanwhile): the caller's transaction holds its row.
  await tx.transfers.lockOutflow(network, call.from);
  const gasAsset = gasCurrencyOf(network);
  const native = call.asset === gasAsset;
  // Checked before any estimate: a node estimates a token transfer the sender cannot pay as a failure.
  if (!native) {
    const tokens = (await sender.tokenBalance(call.asset as Asset, call.from)) - (await tx.transfers.pendingAmount(network, call.from, call.asset));
    if (tokens < call.amount) return { kind: 'short', lacking: call.asset, asset: call.asset, available: tokens, needed: call.amount };
  }
  // The node's answers at once (one round trip: the EVM adapter batches concurrent calls).
  const [fees, estimate, held] = await Promise.all([
    sender.feeQuote(),
    Promise.all([sender.gasLimit(call), sender.burnEstimate(call)]).catch((err: unknown) => {
      if (err instanceof TransferRefused) return err;
      throw err;
    }),
    sender.nativeBalance(call.from),
  ]);
  if (estimate instanceof TransferRefused) return { kind: 'refused', reason: estimate.message };
  const [gasLimit, burn] = estimate;
  const gas = fees && gasLimit ? gasLimit * fees.maxFeePerGas : burn ? burn.energy + burn.bandwidth + burn.activation : 0n;
  const nativeBalance = held - (await tx.transfers.committedOutflow(network, call.from, gasAsset, fees?.maxFeePerGas ?? 0n));
  const needed = gas + (native ? call.amount : 0n);
  if (nativeBalance < needed) {
    // Short of gas, nothing can go; short of the native amount only, the other assets still can.
    return { kind: 'short', lacking: nativeBalance < gas ? GAS : call.asset, asset: gasAsset, available: nativeBalance, needed };
  }
  // TRON: the most its energy may burn; EVM: no cap, a stuck transfer is replaced as fees rise.
  return { kind: 'ok', gasLimit, feeCap: burn ? withMargin(burn.energy) : null, burn };
}
