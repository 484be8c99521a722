// GET /v2/chains (docs/api.md#chains): any valid key; the networks of the key's side.
import { z } from 'zod';
import { ListChains } from '../../application/chains/list-chains.js';
import { anyKey } from '../../domain/auth/principal.js';
import { principalOf } from './authenticate.js';
import { asset, baseChain, resolvedChain } from './common-schemas.js';
import { EXAMPLES } from './examples.js';
import type { Resource } from './route.js';

export const chainSchema = z
  .strictObject({
    chain: resolvedChain,
    base_chain: baseChain,
    assets: z.array(
      z.strictObject({
        asset,
        decimals: z.number().int().meta({ description: 'Places of amounts in this API' }),
        chain_decimals: z.number().int().meta({ description: 'Places of the token on chain (they differ for USDT_BSC)' }),
        contract_address: z.string().nullable().meta({ description: 'The token contract; null for a native asset' }),
      }),
    ),
    required_confirmations: z.number().int().min(1),
    enabled: z.boolean().meta({ description: 'Whether the network takes new wallets (and withdrawals)' }),
  })
  .meta({ id: 'Chain', examples: [EXAMPLES.chain] });

export const chainListSchema = z.strictObject({ data: z.array(chainSchema) });

export const chainsResource: Resource<{ listChains: ListChains }> = {
  mount: '/chains',
  tag: 'Chains',
  deps: (resolve) => ({ listChains: resolve(ListChains) }),
  routes: [
    {
      operationId: 'listChains',
      summary: "The networks of the key's side, with their assets, confirmations and whether they are enabled",
      method: 'get',
      path: '/',
      access: anyKey,
      responses: { 200: { description: 'The networks', schema: chainListSchema } },
      errors: [],
      handle: (deps) => async (_req, res) => {
        const view: z.infer<typeof chainListSchema> = {
          data: (await deps.listChains.execute(principalOf(res))).map((n) => ({
            chain: n.network,
            base_chain: n.base,
            assets: n.assets.map((a) => ({
              asset: a.asset,
              decimals: a.decimals,
              chain_decimals: a.chainDecimals,
              contract_address: a.contractAddress,
            })),
            required_confirmations: n.requiredConfirmations,
            enabled: n.enabled,
          })),
        };
        res.json(view);
      },
    },
  ],
};
