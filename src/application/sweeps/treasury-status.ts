// `ops treasury status`: per network, the treasury, gas tank and faucet
// dispenser addresses (each network has its own, ADR 0024) with their native
// and token balances read from the node. A network without a node shows its
// addresses and no balances. A network with a treasury policy (ADR 0032) also
// shows, per asset, the hot float against its limits, what unsent withdrawals
// need, the refill to ask of a person, and what the books hold cold.
import { inject, injectable } from 'tsyringe';
import { servicePath, type ServiceRole } from '../../domain/custody/derivation.js';
import { Amount, formatPlaces } from '../../domain/money/amount.js';
import { refillToAsk } from '../../domain/custody/cold-forward.js';
import { inForce } from '../../domain/custody/treasury-policy.js';
import { ASSET_SPECS, CHAIN_ASSETS, NATIVE_CURRENCY, NETWORKS, baseChainOf, type Asset, type Network } from '../../domain/money/networks.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import type { SignerPort } from '../../domain/custody/ports.js';
import type { BalanceReader } from '../../domain/transfers/ports.js';
import { TOKENS } from '../tokens.js';

export interface ServiceAccountStatus {
  address: string;
  /** By currency: the native one (ETH, BNB, TRX) and the network's tokens, decimal strings; null without a node. */
  balances: Record<string, string> | null;
}

export interface NetworkTreasuryStatus {
  network: Network;
  node: boolean;
  /** Why balances are missing (the node failed), when they are. */
  error?: string;
  treasury: ServiceAccountStatus;
  gas_tank: ServiceAccountStatus;
  faucet_dispenser: ServiceAccountStatus;
  /** Per asset with a treasury policy: present only on a network that has one. */
  custody?: CustodyStatus[];
}

export interface CustodyStatus {
  asset: Asset;
  cold_address: string | null;
  /** A cold address waiting for its cooling-off. */
  pending_cold_address: string | null;
  ceiling: string;
  target_float: string;
  floor: string;
  /** What the treasury holds on the node beyond its transfers on their way; null without a node. */
  hot: string | null;
  /** The net of the withdrawals not sent yet. */
  reserved: string;
  /** What a person should send from the cold address (0 when none is needed); null without a node. */
  refill_needed: string | null;
  /** What the books say is held cold, and in transit to it. */
  cold_booked: string;
  in_transit: string;
}

const ROLES: [keyof Pick<NetworkTreasuryStatus, 'treasury' | 'gas_tank' | 'faucet_dispenser'>, ServiceRole][] = [
  ['treasury', 'treasury'],
  ['gas_tank', 'gasTank'],
  ['faucet_dispenser', 'faucet'],
];

@injectable()
export class TreasuryStatus {
  constructor(
    @inject(TOKENS.Signer) private readonly signer: SignerPort,
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(readers: readonly BalanceReader[], only?: Network): Promise<NetworkTreasuryStatus[]> {
    const networks = only ? [only] : [...NETWORKS];
    return Promise.all(networks.map((n) => this.network(n, readers.find((r) => r.network === n))));
  }

  private async network(network: Network, reader: BalanceReader | undefined): Promise<NetworkTreasuryStatus> {
    const chain = baseChainOf(network);
    const tokens = CHAIN_ASSETS[chain].filter((a) => !ASSET_SPECS[a].native);
    const native = NATIVE_CURRENCY[chain];
    const out = { network, node: reader !== undefined } as NetworkTreasuryStatus;
    for (const [field, role] of ROLES) {
      const address = await this.signer.deriveAddress(chain, servicePath(network, role));
      let balances: Record<string, string> | null = null;
      if (reader && out.error === undefined) {
        try {
          balances = { [native.symbol]: formatPlaces(await reader.nativeBalance(address), native.decimals) };
          for (const asset of tokens) balances[asset] = Amount.fromChainUnits(asset, await reader.tokenBalance(asset, address)).toString();
        } catch (err) {
          out.error = err instanceof Error ? err.message : String(err);
          balances = null;
        }
      }
      out[field] = { address, balances };
    }
    const custody = await this.custody(network, out.treasury, reader !== undefined && out.error === undefined);
    if (custody.length > 0) out.custody = custody;
    return out;
  }

  private async custody(network: Network, treasury: ServiceAccountStatus, read: boolean): Promise<CustodyStatus[]> {
    const now = this.clock.now();
    return this.uow.run(async (tx) => {
      const policies = (await tx.treasury.policies()).filter((p) => p.network === network).map((p) => inForce(p, now));
      const out: CustodyStatus[] = [];
      for (const p of policies) {
        const onChain = read && treasury.balances ? treasury.balances[p.asset] : undefined;
        const pending = await tx.transfers.pendingAmount(network, treasury.address, p.asset);
        const held = onChain === undefined ? null : Amount.parse(onChain, p.asset, 'balance', { allowZero: true }).units - Amount.fromChainUnits(p.asset, pending).units;
        const reserved = await tx.withdrawals.unsentNetTotal(network, p.asset);
        const booked = async (kind: 'COLD' | 'COLD_IN_TRANSIT') => -(await tx.ledger.serviceBalance(network, p.asset, kind));
        const show = (units: bigint) => Amount.ofUnits(p.asset, units).toString();
        out.push({
          asset: p.asset,
          cold_address: p.coldAddress,
          pending_cold_address: p.pending?.coldAddress ?? null,
          ceiling: show(p.ceiling),
          target_float: show(p.targetFloat),
          floor: show(p.floor),
          hot: held === null ? null : show(held),
          reserved: show(reserved),
          refill_needed: held === null ? null : show(refillToAsk({ held, reserved }, p)),
          cold_booked: show(await booked('COLD')),
          in_transit: show(await booked('COLD_IN_TRANSIT')),
        });
      }
      return out;
    });
  }
}
