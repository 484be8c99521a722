// Sweeps (docs/api.md#deposits, ADR 0027): a deposit address's credited,
// unswept funds of one asset move to the network's treasury once they reach
// the sweep minimum. A token sweep first has the gas tank top the address up
// with just enough native currency; a native sweep sends the balance minus
// its own gas. Pure: the amounts are computed here, the chain work is the
// outgoing-transfer pipeline's.
//
//   WAITING_GAS  the address has too little native currency for the sweep's
//                gas and the gas tank cannot pay for a top-up yet (or one is
//                about to be requested)
//   TOPPING_UP   a GAS_TOPUP transfer from the gas tank is on its way
//   SWEEPING     the SWEEP transfer to the treasury is on its way
//   SWEPT        confirmed: the deposits are SWEPT
//   FAILED       the sweep transfer failed: its deposits are free to be swept again
import type { DerivationPath } from '../custody/derivation.js';
import { DEFAULT_ASSET_FEES } from '../fees/fee-schedule.js';
import type { Asset, Network } from '../money/networks.js';
import type { EvmFees } from './outgoing-transfer.js';
import type { TronBurn } from './ports.js';

export type SweepStatus = 'WAITING_GAS' | 'TOPPING_UP' | 'SWEEPING' | 'SWEPT' | 'FAILED';
export const OPEN_SWEEP_STATUSES: readonly SweepStatus[] = ['WAITING_GAS', 'TOPPING_UP', 'SWEEPING'];

export interface Sweep {
  id: string;
  network: Network;
  asset: Asset;
  walletId: string;
  address: string;
  addressPath: DerivationPath;
  status: SweepStatus;
  /** The credited gross of its deposits, API precision. */
  depositTotal: bigint;
  topUpTransferId: string | null;
  sweepTransferId: string | null;
  failure: string | null;
  /**
   * A return sweep (ADR 0032): it sends an unexpected arrival back to its sender (`to`) instead of the
   * wallet's deposits to the treasury, with the same top-up and transfer pipeline. Null for a sweep.
   */
  returnOf: { arrivalId: string; to: string; chainAmount: bigint } | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A wallet whose unswept deposits of its asset reached the minimum. */
export interface SweepCandidate {
  walletId: string;
  asset: Asset;
  address: string;
  derivationAccount: number;
  derivationIndex: number;
  /** API precision. */
  total: bigint;
  depositIds: string[];
}

/** The operator's sweep policy of one asset on one network. */
export interface SweepPolicy {
  network: Network;
  asset: Asset;
  /** API precision. */
  minimum: bigint;
  /** Sweeps of the asset are started at most once per interval (batched); 0 starts them as soon as a wallet qualifies. */
  intervalSeconds: number;
  lastRunAt: Date | null;
}

/** The default policy: the fee schedule's sweep minimum (docs/api.md#fee-schedule), the same on mainnets and testnets, swept as soon as reached. */
export const defaultSweepPolicy = (network: Network, asset: Asset): SweepPolicy => ({
  network,
  asset,
  minimum: DEFAULT_ASSET_FEES[asset].sweepMinimum,
  intervalSeconds: 0,
  lastRunAt: null,
});

/** The policy of every asset of the network: the operator's where set, the defaults elsewhere. */
export function effectivePolicies(network: Network, assets: readonly Asset[], configured: readonly SweepPolicy[]): SweepPolicy[] {
  return assets.map((asset) => configured.find((p) => p.network === network && p.asset === asset) ?? defaultSweepPolicy(network, asset));
}

/** Whether the policy's schedule lets sweeps of its asset start at `now`. */
export const policyDue = (p: SweepPolicy, now: Date): boolean =>
  p.intervalSeconds === 0 || p.lastRunAt === null || now.getTime() - p.lastRunAt.getTime() >= p.intervalSeconds * 1000;

/** Percent added to the estimated gas cost of a token sweep when the address is topped up (fees move between blocks). */
export const TOP_UP_MARGIN_PERCENT = 50n;

/** EVM: the native currency a token sweep needs: gas limit × max fee × (1 + margin). */
export const sweepGasBudget = (gasLimit: bigint, fees: EvmFees, marginPercent = TOP_UP_MARGIN_PERCENT): bigint =>
  (gasLimit * fees.maxFeePerGas * (100n + marginPercent) + 99n) / 100n;

/** What the gas tank sends so the address holds `budget`: nothing when it already does. */
export const topUpAmount = (budget: bigint, addressBalance: bigint): bigint => (addressBalance >= budget ? 0n : budget - addressBalance);

/**
 * EVM: a native sweep sends the balance minus its own gas at `feeCap` (the
 * highest max fee it may pay); null when the balance does not cover the gas.
 */
export function nativeSweepAmount(balance: bigint, gasLimit: bigint, feeCap: bigint): bigint | null {
  const amount = balance - gasLimit * feeCap;
  return amount > 0n ? amount : null;
}

/** An amount with the top-up margin added, rounded up. */
export const withMargin = (units: bigint, marginPercent = TOP_UP_MARGIN_PERCENT): bigint => (units * (100n + marginPercent) + 99n) / 100n;

/**
 * TRON: what a token sweep needs, in sun. The address sweeps once it holds
 * its estimated burn (energy and bandwidth); a top-up brings it to that burn
 * with the margin; the transaction's fee_limit is its energy with the margin
 * (java-tron burns no more than the limit, and fails the call instead).
 */
export function tronSweepBudget(burn: TronBurn): { required: bigint; topUpTo: bigint; feeLimit: bigint } {
  const required = burn.energy + burn.bandwidth;
  return { required, topUpTo: withMargin(required), feeLimit: withMargin(burn.energy) };
}
