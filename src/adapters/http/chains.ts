// GET /v2/chains (D8): any valid key; the networks of the key's side.
import { Router } from 'express';
import type { ListChains } from '../../application/chains/list-chains.js';
import { principalOf } from './authenticate.js';

export function chainsRouter(listChains: ListChains): Router {
  const r = Router();
  r.get('/', (_req, res) => {
    const data = listChains.execute(principalOf(res)).map((n) => ({
      chain: n.network,
      base_chain: n.base,
      assets: n.assets.map((a) => ({ asset: a.asset, decimals: a.decimals, contract_address: a.contractAddress })),
      required_confirmations: n.requiredConfirmations,
      enabled: n.enabled,
    }));
    res.json({ data });
  });
  return r;
}
