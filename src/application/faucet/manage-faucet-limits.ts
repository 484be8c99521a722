// `ops faucet set|show` (docs/adr/0029-sandbox-faucet.md): the operator's
// faucet limits. Per asset: the default amount of an item, the cap of an
// item and (native currencies only) the rolling 24-hour budget; for the
// whole faucet: the items a drip may carry and the drips a workspace may ask
// for in an hour. What is not set keeps its default.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import type { FaucetAssetLimit } from '../../domain/faucet/faucet.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSETS, ASSET_SPECS, type Asset } from '../../domain/money/networks.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export interface FaucetLimitsChange {
  asset?: Asset;
  defaultAmount?: string;
  cap?: string;
  budget?: string;
  maxItems?: number;
  dripsPerHour?: number;
}

export interface FaucetAssetLimitView {
  asset: Asset;
  default_amount: string;
  cap: string;
  /** The rolling 24-hour budget per workspace; null for a token (not rationed). */
  budget_24h: string | null;
  configured: boolean;
}

export interface FaucetLimitsView {
  max_items: number;
  drips_per_hour: number;
  assets: FaucetAssetLimitView[];
}

const invalid = (field: string, message: string) => new DomainError('VALIDATION_ERROR', `--${field} ${message}`, [{ path: field, message }]);

@injectable()
export class ManageFaucetLimits {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async set(change: FaucetLimitsChange): Promise<FaucetLimitsView> {
    const perAsset = change.defaultAmount !== undefined || change.cap !== undefined || change.budget !== undefined;
    if (perAsset && change.asset === undefined) throw invalid('asset', 'is required with --default, --cap or --budget');
    if (change.asset !== undefined && !perAsset) throw invalid('asset', 'needs at least one of --default, --cap, --budget');
    if (!perAsset && change.maxItems === undefined && change.dripsPerHour === undefined) throw invalid('asset', 'or --max-items or --drips-per-hour: nothing to set');
    await this.uow.run(async (tx) => {
      const now = this.clock.now();
      const limits = await tx.faucet.limits();
      if (change.maxItems !== undefined || change.dripsPerHour !== undefined) {
        await tx.faucet.setSettings({ maxItems: change.maxItems ?? limits.maxItems, dripsPerHour: change.dripsPerHour ?? limits.dripsPerHour }, now);
      }
      if (change.asset !== undefined) {
        const asset = change.asset;
        const native = ASSET_SPECS[asset].native;
        if (change.budget !== undefined && !native) throw invalid('budget', `applies to native currencies only; ${asset} is a token (not rationed)`);
        const current = limits.assets[asset];
        const next: FaucetAssetLimit = {
          defaultAmount: change.defaultAmount === undefined ? current.defaultAmount : Amount.parse(change.defaultAmount, asset, 'default').units,
          cap: change.cap === undefined ? current.cap : Amount.parse(change.cap, asset, 'cap').units,
          budget: change.budget === undefined ? current.budget : Amount.parse(change.budget, asset, 'budget').units,
        };
        if (next.defaultAmount > next.cap) throw invalid('default', `must not exceed the cap (${Amount.ofUnits(asset, next.cap).toString()})`);
        if (next.budget !== null && next.cap > next.budget) throw invalid('cap', `must not exceed the 24-hour budget (${Amount.ofUnits(asset, next.budget).toString()})`);
        await tx.faucet.setAssetLimit(asset, next, now);
      }
    });
    return this.show();
  }

  async show(): Promise<FaucetLimitsView> {
    return this.uow.run(async (tx) => {
      const limits = await tx.faucet.limits();
      const configured = new Set(await tx.faucet.configuredAssets());
      return {
        max_items: limits.maxItems,
        drips_per_hour: limits.dripsPerHour,
        assets: ASSETS.map((asset) => {
          const l = limits.assets[asset];
          return {
            asset,
            default_amount: Amount.ofUnits(asset, l.defaultAmount).toString(),
            cap: Amount.ofUnits(asset, l.cap).toString(),
            budget_24h: l.budget === null ? null : Amount.ofUnits(asset, l.budget).toString(),
            configured: configured.has(asset),
          };
        }),
      };
    });
  }
}
