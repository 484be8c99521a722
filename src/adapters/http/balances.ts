// GET /v2/balances (docs/api.md#balances): { data: [{ chain, asset, available, locked, total }] }.
import { z } from 'zod';
import { GetBalances } from '../../application/balances/get-balances.js';
import { scope } from '../../domain/auth/principal.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSETS } from '../../domain/money/networks.js';
import { principalOf } from './authenticate.js';
import { chainFilter, resolveChainFilter } from './chain-filter.js';
import { amountString, asset, resolvedChain } from './common-schemas.js';
import { EXAMPLES } from './examples.js';
import type { Resource } from './route.js';
import { parse } from './validation.js';

// Like every list endpoint: known parameters are validated, unknown ones ignored.
const query = z.object({
  chain: chainFilter,
  asset: z.enum(ASSETS).optional(),
});

export const balanceSchema = z
  .strictObject({ chain: resolvedChain, asset, available: amountString, locked: amountString, total: amountString })
  .meta({ id: 'Balance', examples: [EXAMPLES.balance] });
export const balanceListSchema = z.strictObject({ data: z.array(balanceSchema) });

export const balancesResource: Resource<{ getBalances: GetBalances }> = {
  mount: '/balances',
  tag: 'Balances',
  deps: (resolve) => ({ getBalances: resolve(GetBalances) }),
  routes: [
    {
      operationId: 'getBalances',
      summary: "Available and locked balances per asset on the key's networks, from the ledger",
      method: 'get',
      path: '/',
      access: scope('wallets:read'),
      request: { query },
      responses: { 200: { description: 'The balances', schema: balanceListSchema } },
      errors: [],
      handle: (deps) => async (req, res) => {
        const principal = principalOf(res);
        const q = parse(query, req.query);
        const network = resolveChainFilter(q.chain, principal.side);
        const balances = await deps.getBalances.execute(principal, { network, asset: q.asset });
        const view: z.infer<typeof balanceListSchema> = {
          data: balances.map((b) => ({
            chain: b.network,
            asset: b.asset,
            available: Amount.ofUnits(b.asset, b.available).toString(),
            locked: Amount.ofUnits(b.asset, b.locked).toString(),
            total: Amount.ofUnits(b.asset, b.available + b.locked).toString(),
          })),
        };
        res.json(view);
      },
    },
  ],
};
