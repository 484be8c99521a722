// `ops treasury reconcile` (issue 31, ADR 0032): per network and asset with a
// cold address, the cold address's balance read on the node against what the
// books hold cold (forwarded and arrived, less refilled) and in transit to it.
// A difference is reported, never booked: the cold address may receive from
// elsewhere (a surplus), and a shortfall is money gone from cold storage.
import { inject, injectable } from 'tsyringe';
import { inForce } from '../../domain/custody/treasury-policy.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSET_SPECS, type Asset, type Network } from '../../domain/money/networks.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import type { BalanceReader } from '../../domain/transfers/ports.js';
import { TOKENS } from '../tokens.js';

export interface ColdReconciliation {
  chain: Network;
  asset: Asset;
  cold_address: string;
  /** What the books hold cold (API units, decimal). */
  booked: string;
  /** Forwards on their way to it, not counted as cold yet. */
  in_transit: string;
  /** Read on the node; null when no node answers for the network. */
  on_chain: string | null;
  /** on_chain − booked: negative is a shortfall. Null without a reading. */
  difference: string | null;
  verdict: 'ok' | 'surplus' | 'shortfall' | 'unread';
  why?: string;
}

@injectable()
export class ReconcileCold {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(readers: readonly BalanceReader[], only?: Network): Promise<{ ok: boolean; cold: ColdReconciliation[] }> {
    const now = this.clock.now();
    const rows = await this.uow.run(async (tx) => {
      const policies = (await tx.treasury.policies()).map((p) => inForce(p, now)).filter((p) => p.coldAddress !== null && (!only || p.network === only));
      const out: { network: Network; asset: Asset; cold: string; booked: bigint; inTransit: bigint }[] = [];
      for (const p of policies) {
        out.push({
          network: p.network,
          asset: p.asset,
          cold: p.coldAddress!,
          booked: -(await tx.ledger.serviceBalance(p.network, p.asset, 'COLD')),
          inTransit: -(await tx.ledger.serviceBalance(p.network, p.asset, 'COLD_IN_TRANSIT')),
        });
      }
      return out;
    });
    const cold: ColdReconciliation[] = [];
    for (const r of rows) {
      const show = (units: bigint) => Amount.ofUnits(r.asset, units).toString();
      const base = { chain: r.network, asset: r.asset, cold_address: r.cold, booked: show(r.booked), in_transit: show(r.inTransit) };
      const reader = readers.find((x) => x.network === r.network);
      if (!reader) {
        cold.push({ ...base, on_chain: null, difference: null, verdict: 'unread', why: `no node is configured for ${r.network}` });
        continue;
      }
      try {
        const held = ASSET_SPECS[r.asset].native ? await reader.nativeBalance(r.cold) : await reader.tokenBalance(r.asset, r.cold);
        const onChain = Amount.fromChainUnits(r.asset, held).units;
        const difference = onChain - r.booked;
        const signed = difference < 0n ? `-${show(-difference)}` : show(difference);
        cold.push({ ...base, on_chain: show(onChain), difference: signed, verdict: difference === 0n ? 'ok' : difference > 0n ? 'surplus' : 'shortfall' });
      } catch (err) {
        cold.push({ ...base, on_chain: null, difference: null, verdict: 'unread', why: err instanceof Error ? err.message : String(err) });
      }
    }
    return { ok: cold.every((c) => c.verdict === 'ok' || c.verdict === 'surplus'), cold };
  }
}
