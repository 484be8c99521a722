// GET /v2/chains (docs/api.md#chains): any valid key; the networks of the key's side.
import type { ListChains } from '../../application/chains/list-chains.js';
import { principalOf } from './authenticate.js';
import type { RouteSpec } from './route.js';
import { anyKey } from '../../domain/auth/principal.js';

export function chainRoutes(listChains: ListChains): RouteSpec[] {
  return [{ method: 'get', path: '/', access: anyKey, handler: async (_req, res) => {
    const data = (await listChains.execute(principalOf(res))).map((n) => ({
      chain: n.network,
      base_chain: n.base,
      // decimals: places of amounts in this API (docs/api.md#amounts);
      // chain_decimals: of the token on chain (additive field, they differ for
      // USDT_BSC).
      assets: n.assets.map((a) => ({
        asset: a.asset,
        decimals: a.decimals,
        chain_decimals: a.chainDecimals,
        contract_address: a.contractAddress,
      })),
      required_confirmations: n.requiredConfirmations,
      enabled: n.enabled,
    }));
    res.json({ data });
  } }];
}
