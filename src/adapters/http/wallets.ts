// /v2/wallets (docs/api.md#wallets): create (idempotent), list, read, archive.
// external_ref only in the detail view, never in lists or create responses
// (which idempotency stores).
import { z } from 'zod';
import type { RunIdempotently } from '../../application/idempotency/run-idempotently.js';
import type { ArchiveWallet } from '../../application/wallets/archive-wallet.js';
import type { CreateWallet } from '../../application/wallets/create-wallet.js';
import type { ReadWallets } from '../../application/wallets/read-wallets.js';
import { ASSETS, BASE_CHAINS } from '../../domain/money/networks.js';
import { mapPage } from '../../domain/pagination.js';
import { WALLET_EXTERNAL_REF_MAX, WALLET_STATUSES, type Wallet } from '../../domain/wallets/wallet.js';
import { principalOf } from './authenticate.js';
import { chainFilter, resolveChainFilter } from './chain-filter.js';
import { idempotent } from './idempotency.js';
import { pageQuery } from './pagination.js';
import { parse } from './validation.js';
import type { RouteSpec } from './route.js';
import { scope } from '../../domain/auth/principal.js';

/** UUIDs in one spelling (docs/api.md#overview): what a client sends in capitals is stored and answered in lowercase. */
const lowerUuid = z.uuid().transform((id) => id.toLowerCase());

const createBody = z.strictObject({
  chain: z.enum(BASE_CHAINS),
  asset: z.enum(ASSETS),
  // null is accepted where the wallet shows null (docs/api.md#wallets): no reference, the workspace's own address.
  external_ref: z.string().min(1).max(WALLET_EXTERNAL_REF_MAX).nullable().optional(),
  customer_id: lowerUuid.nullable().optional(),
});

const listQuery = pageQuery.extend({
  status: z.enum(WALLET_STATUSES).optional(),
  chain: chainFilter,
  asset: z.enum(ASSETS).optional(),
  customer_id: lowerUuid.optional(),
});

export const presentWallet = (w: Wallet) => ({
  id: w.id,
  chain: w.network,
  asset: w.asset,
  address: w.address,
  status: w.status,
  customer_id: w.customerId,
  created_at: w.createdAt.toISOString(),
});

export function walletRoutes(deps: {
  create: CreateWallet;
  read: ReadWallets;
  archive: ArchiveWallet;
  idempotency: RunIdempotently;
}): RouteSpec[] {
  return [
    {
      method: 'post',
      path: '/',
      access: scope('wallets:write'),
      handler: idempotent(deps.idempotency, async (req, res) => {
        const body = parse(createBody, req.body);
        const wallet = await deps.create.execute(principalOf(res), {
          chain: body.chain,
          asset: body.asset,
          externalRef: body.external_ref ?? null,
          customerId: body.customer_id ?? null,
        });
        return { status: 201, body: presentWallet(wallet) };
      }),
    },
    {
      method: 'get',
      path: '/',
      access: scope('wallets:read'),
      handler: async (req, res) => {
        const principal = principalOf(res);
        const q = parse(listQuery, req.query);
        const network = resolveChainFilter(q.chain, principal.side);
        const page = await deps.read.list(principal, { status: q.status, network, asset: q.asset, customerId: q.customer_id }, q);
        res.json(mapPage(page, presentWallet));
      },
    },
    {
      method: 'get',
      path: '/:id',
      access: scope('wallets:read'),
      handler: async (req, res) => {
        const { wallet, externalRef } = await deps.read.get(principalOf(res), String(req.params.id));
        res.json({ ...presentWallet(wallet), external_ref: externalRef });
      },
    },
    {
      method: 'post',
      path: '/:id/archive',
      access: scope('wallets:write'),
      handler: idempotent(deps.idempotency, async (req, res) => {
        const wallet = await deps.archive.execute(principalOf(res), String(req.params.id));
        return { status: 200, body: presentWallet(wallet) };
      }),
    },
  ];
}
