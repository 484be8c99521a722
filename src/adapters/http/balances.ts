// GET /v2/balances (D7): { data: [{ chain, asset, available, locked, total }] }.
import { Router } from 'express';
import { z } from 'zod';
import type { GetBalances } from '../../application/balances/get-balances.js';
import { Amount } from '../../domain/money/amount.js';
import { ASSETS, BASE_CHAINS, NETWORKS, networkFor, type BaseChain, type Network } from '../../domain/money/networks.js';
import { principalOf } from './authenticate.js';
import { parse } from './validation.js';

const query = z.strictObject({
  chain: z.enum([...BASE_CHAINS, ...NETWORKS]).optional(),
  asset: z.enum(ASSETS).optional(),
});

export function balancesRouter(getBalances: GetBalances): Router {
  const r = Router();
  r.get('/', async (req, res) => {
    const principal = principalOf(res);
    const q = parse(query, req.query);
    const network: Network | undefined =
      q.chain === undefined
        ? undefined
        : (BASE_CHAINS as readonly string[]).includes(q.chain)
          ? networkFor(q.chain as BaseChain, principal.side)
          : (q.chain as Network);
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
  });
  return r;
}
