// The sandbox faucet's rules (docs/adr/0029-sandbox-faucet.md), pure: what a
// drip may ask for, and the limits checked against what the workspace has
// already been given. Tokens are generous; the native currencies are
// rationed by a rolling budget per asset and workspace. Limits are the
// operator's to change; these are the defaults.
import { DomainError } from '../errors.js';
import { Amount } from '../money/amount.js';
import { ASSETS, ASSET_SPECS, isAssetOnChain, type Asset, type BaseChain, type Network } from '../money/networks.js';

/** The window of a native asset's budget. */
export const FAUCET_BUDGET_WINDOW_MS = 24 * 3_600_000;
/** The window of the drip count limit. */
export const FAUCET_RATE_WINDOW_MS = 3_600_000;

/** Per asset, in the API's units of the asset: the amount of an item that names none, the most one item may ask, and (native only) the rolling budget. */
export interface FaucetAssetLimit {
  defaultAmount: bigint;
  cap: bigint;
  budget: bigint | null;
}

export interface FaucetLimits {
  maxItems: number;
  dripsPerHour: number;
  assets: Record<Asset, FaucetAssetLimit>;
}

const units = (asset: Asset, value: string) => Amount.parse(value, asset).units;
const token = (asset: Asset): FaucetAssetLimit => ({ defaultAmount: units(asset, '1000'), cap: units(asset, '10000'), budget: null });

/** The defaults: 5 assets a drip; tokens 1,000 by default and 10,000 at most an item; ETH 0.01 / 0.05 / 0.1 a day; BNB 0.05 / 0.2 / 0.5 a day; 20 drips an hour. */
export const DEFAULT_FAUCET_LIMITS: FaucetLimits = {
  maxItems: 5,
  dripsPerHour: 20,
  assets: {
    USDT_TRON: token('USDT_TRON'),
    USDT_BSC: token('USDT_BSC'),
    USDT_ETH: token('USDT_ETH'),
    USDC_ETH: token('USDC_ETH'),
    EURC_ETH: token('EURC_ETH'),
    ETH: { defaultAmount: units('ETH', '0.01'), cap: units('ETH', '0.05'), budget: units('ETH', '0.1') },
    BNB: { defaultAmount: units('BNB', '0.05'), cap: units('BNB', '0.2'), budget: units('BNB', '0.5') },
  },
};

export interface DripItem {
  asset: Asset;
  amount: Amount;
}

/**
 * The items of a drip request on `chain`, checked in this order: at least
 * one (FAUCET_NO_ASSETS); every item's asset on the chain
 * (FAUCET_INVALID_ASSET) and amount a positive decimal of the asset's places
 * (FAUCET_INVALID_AMOUNT), all 400; then at most `maxItems`
 * (FAUCET_TOO_MANY_ITEMS), each asset once (FAUCET_DUPLICATE_ASSET), each
 * within its cap (FAUCET_AMOUNT_OVER_CAP), all 422. An item without an
 * amount gets the asset's default.
 */
export function planDrip(chain: BaseChain, requested: readonly { symbol: string; amount?: string | undefined }[], limits: FaucetLimits): DripItem[] {
  if (requested.length === 0) throw new DomainError('FAUCET_NO_ASSETS', 'assets must name at least one asset', [{ path: 'assets', message: 'must not be empty' }]);
  const items = requested.map((r, i): DripItem => {
    const asset = (ASSETS as readonly string[]).includes(r.symbol) ? (r.symbol as Asset) : null;
    if (asset === null || !isAssetOnChain(chain, asset)) {
      throw new DomainError('FAUCET_INVALID_ASSET', `assets.${i}.symbol: ${r.symbol} is not an asset of ${chain}`, [{ path: `assets.${i}.symbol`, message: `not an asset of ${chain}` }]);
    }
    if (r.amount === undefined) return { asset, amount: Amount.ofUnits(asset, limits.assets[asset].defaultAmount) };
    try {
      return { asset, amount: Amount.parse(r.amount, asset, `assets.${i}.amount`) };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new DomainError('FAUCET_INVALID_AMOUNT', message, [{ path: `assets.${i}.amount`, message }]);
    }
  });
  if (items.length > limits.maxItems) throw new DomainError('FAUCET_TOO_MANY_ITEMS', `A drip carries at most ${limits.maxItems} assets; this one asks for ${items.length}`);
  const seen = new Set<Asset>();
  for (const item of items) {
    if (seen.has(item.asset)) throw new DomainError('FAUCET_DUPLICATE_ASSET', `${item.asset} appears twice: ask for it once, with the total`);
    seen.add(item.asset);
  }
  for (const item of items) {
    const cap = Amount.ofUnits(item.asset, limits.assets[item.asset].cap);
    if (item.amount.units > cap.units) throw new DomainError('FAUCET_AMOUNT_OVER_CAP', `${item.asset}: at most ${cap.toString()} a drip; asked ${item.amount.toString()}`);
  }
  return items;
}

/** The drip rate: at most `dripsPerHour` drips of the workspace in the last hour, this one included. */
export function checkDripRate(dripsInWindow: number, limits: FaucetLimits): void {
  if (dripsInWindow >= limits.dripsPerHour) {
    throw new DomainError('FAUCET_RATE_LIMITED', `At most ${limits.dripsPerHour} ${limits.dripsPerHour === 1 ? 'drip' : 'drips'} an hour per workspace; ${dripsInWindow} in the last hour`);
  }
}

/**
 * The native items against their rolling budgets: `given` is what the
 * workspace received of each native asset in the last 24 hours (drips not
 * failed). The message states the usage and the window.
 */
export function checkNativeBudgets(items: readonly DripItem[], given: ReadonlyMap<Asset, bigint>, limits: FaucetLimits): void {
  for (const item of items) {
    const budget = limits.assets[item.asset].budget;
    if (!ASSET_SPECS[item.asset].native || budget === null) continue;
    const used = given.get(item.asset) ?? 0n;
    if (used + item.amount.units > budget) {
      const of = (u: bigint) => Amount.ofUnits(item.asset, u).toString();
      throw new DomainError(
        'FAUCET_NATIVE_BUDGET_EXCEEDED',
        `${item.asset}: ${of(used)} of the ${of(budget)} budget given in the last 24 hours; ${of(item.amount.units)} more would pass it (${of(budget - used < 0n ? 0n : budget - used)} left)`,
      );
    }
  }
}

/** Whether the drip asks for a native asset (those need a confirmed sandbox token deposit first). */
export const asksNative = (items: readonly DripItem[]): boolean => items.some((i) => ASSET_SPECS[i.asset].native);

export const DRIP_STATUSES = ['QUEUED', 'SENDING', 'COMPLETED', 'FAILED'] as const;
export type DripStatus = (typeof DRIP_STATUSES)[number];
export const DRIP_ITEM_STATUSES = ['QUEUED', 'SENT', 'CONFIRMED', 'FAILED'] as const;
export type DripItemStatus = (typeof DRIP_ITEM_STATUSES)[number];

export interface DripLine {
  asset: Asset;
  /** API precision. */
  amount: bigint;
  status: DripItemStatus;
  /** The outgoing transfer that sends it, once the chain-worker took it. */
  transferId: string | null;
}

/** One faucet request: what goes to which sandbox wallet, and how far it got. */
export interface Drip {
  id: string;
  workspaceId: string;
  network: Network;
  walletId: string;
  address: string;
  status: DripStatus;
  items: DripLine[];
  createdAt: Date;
  updatedAt: Date;
}

/** A drip's status from its items': FAILED once one failed, COMPLETED once all are confirmed, SENDING once one is on its way. */
export function dripStatusOf(items: readonly Pick<DripLine, 'status'>[]): DripStatus {
  if (items.some((i) => i.status === 'FAILED')) return 'FAILED';
  if (items.every((i) => i.status === 'CONFIRMED')) return 'COMPLETED';
  return items.some((i) => i.status !== 'QUEUED') ? 'SENDING' : 'QUEUED';
}

/** The drip with one item changed and its status recomputed. */
export function withItem(drip: Drip, seq: number, change: Partial<Pick<DripLine, 'status' | 'transferId'>>, at: Date): Drip {
  const items = drip.items.map((item, i) => (i === seq ? { ...item, ...change } : item));
  return { ...drip, items, status: dripStatusOf(items), updatedAt: at };
}

/**
 * The drip with one item failed for good: the items not handed to the
 * pipeline yet are not sent either (the drip is FAILED); those on their way
 * still end as their transfers do.
 */
export function withItemFailed(drip: Drip, seq: number, at: Date): Drip {
  const items = drip.items.map((item, i): DripLine => (i === seq || (item.status === 'QUEUED' && item.transferId === null) ? { ...item, status: 'FAILED' } : item));
  return { ...drip, items, status: dripStatusOf(items), updatedAt: at };
}
