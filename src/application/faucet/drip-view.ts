// What the API shows of a drip (docs/api.md#sandbox-faucet): its id, status,
// network and wallet address, and each item's asset, amount and status.
import type { Drip, DripItemStatus, DripStatus } from '../../domain/faucet/faucet.js';
import { Amount } from '../../domain/money/amount.js';
import type { Asset, Network } from '../../domain/money/networks.js';

export interface DripView {
  drip_id: string;
  status: DripStatus;
  chain: Network;
  address: string;
  items: { asset: Asset; amount: string; status: DripItemStatus }[];
}

export const dripView = (d: Drip): DripView => ({
  drip_id: d.id,
  status: d.status,
  chain: d.network,
  address: d.address,
  items: d.items.map((i) => ({ asset: i.asset, amount: Amount.ofUnits(i.asset, i.amount).toString(), status: i.status })),
});
