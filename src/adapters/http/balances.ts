// GET /v2/balances (docs/api.md#balances): { data: [{ chain, asset, available, locked, total }] }.
import { z } from 'zod';
import type { GetBalances } from '../../application/balances/get-balances.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSETS } from '../../domain/money/networks.js';
import { principalOf } from './authenticate.js';
import { chainFilter, resolveChainFilter } from './chain-filter.js';
import { parse } from './validation.js';
import type { RouteSpec } from './route.js';
import { scope } from '../../domain/auth/principal.js';

// Like every list endpoint: known parameters are validated, unknown ones ignored.
const query = z.object({
  chain: chainFilter,
  asset: z.enum(ASSETS).optional(),
});

export function balanceRoutes(getBalances: GetBalances): RouteSpec[] {
  return [{ method: 'get', path: '/', access: scope('wallets:read'), handler: async (req, res) => {
    const principal = principalOf(res);
    const q = parse(query, req.query);
    const network = resolveChainFilter(q.chain, principal.side);
    const balances = await getBalances.execute(principal, { network, asset: q.asset });
    res.json({
      data: balances.map((b) => ({
        chain: b.network,
        asset: b.asset,
        available: Amount.ofUnits(b.asset, b.available).toString(),
        locked: Amount.ofUnits(b.asset, b.locked).toString(),
        total: Amount.ofUnits(b.asset, b.available + b.locked).toString(),
      })),
    });
  } }];
}
