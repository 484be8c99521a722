// `ops sweep policy set|show`: the operator's sweep minimum and schedule per
// network and asset (the defaults of docs/api.md#fee-schedule apply where none
// is set).
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import { Amount } from '../../domain/money/amount.js';
import { CHAIN_ASSETS, NETWORKS, baseChainOf, isAssetOnChain, type Asset, type Network } from '../../domain/money/networks.js';
import type { UnitOfWork } from '../../domain/ports.js';
import { effectivePolicies, type SweepPolicy } from '../../domain/transfers/sweep.js';
import { TOKENS } from '../tokens.js';

export interface SweepPolicyView {
  chain: Network;
  asset: Asset;
  minimum: string;
  interval_seconds: number;
  configured: boolean;
}

const view = (p: SweepPolicy, configured: boolean): SweepPolicyView => ({
  chain: p.network,
  asset: p.asset,
  minimum: Amount.ofUnits(p.asset, p.minimum).toString(),
  interval_seconds: p.intervalSeconds,
  configured,
});

@injectable()
export class ManageSweepPolicy {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  async set(input: { network: Network; asset: Asset; minimum: string; intervalSeconds: number }): Promise<SweepPolicyView> {
    if (!isAssetOnChain(baseChainOf(input.network), input.asset)) {
      throw new DomainError('VALIDATION_ERROR', `${input.asset} is not an asset of ${input.network}`, { field: 'asset' });
    }
    const minimum = Amount.parse(input.minimum, input.asset, 'minimum');
    const policy: SweepPolicy = { network: input.network, asset: input.asset, minimum: minimum.units, intervalSeconds: input.intervalSeconds, lastRunAt: null };
    await this.uow.run((tx) => tx.sweeps.setPolicy(policy));
    return view(policy, true);
  }

  async show(network?: Network): Promise<SweepPolicyView[]> {
    const configured = await this.uow.run((tx) => tx.sweeps.policies());
    return (network ? [network] : [...NETWORKS]).flatMap((n) =>
      effectivePolicies(n, CHAIN_ASSETS[baseChainOf(n)], configured).map((p) =>
        view(p, configured.some((c) => c.network === p.network && c.asset === p.asset)),
      ),
    );
  }
}
