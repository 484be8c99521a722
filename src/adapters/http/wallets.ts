// /v2/wallets (docs/api.md#wallets): create (idempotent), list, read, archive.
// external_ref only in the detail view, never in lists or create responses
// (which idempotency stores).
import { z } from 'zod';
import { RunIdempotently } from '../../application/idempotency/run-idempotently.js';
import { ArchiveWallet } from '../../application/wallets/archive-wallet.js';
import { CreateWallet } from '../../application/wallets/create-wallet.js';
import { ReadWallets } from '../../application/wallets/read-wallets.js';
import { ASSETS, BASE_CHAINS } from '../../domain/money/networks.js';
import { mapPage } from '../../domain/pagination.js';
import { WALLET_EXTERNAL_REF_MAX, WALLET_STATUSES, type Wallet } from '../../domain/wallets/wallet.js';
import { principalOf } from './authenticate.js';
import { chainFilter, resolveChainFilter } from './chain-filter.js';
import { idempotent } from './idempotency.js';
import { pageQuery } from './pagination.js';
import { parse } from './validation.js';
import { asset, idParams, pageOf, resolvedChain, timestamp, uuid } from './common-schemas.js';
import { EXAMPLES } from './examples.js';
import type { Resource } from './route.js';
import { scope } from '../../domain/auth/principal.js';

/** UUIDs in one spelling (docs/api.md#overview): what a client sends in capitals is stored and answered in lowercase. */
const lowerUuid = z
  .uuid()
  .transform((id) => id.toLowerCase())
  .meta({ override: { type: 'string', format: 'uuid' } });

export const createBody = z.strictObject({
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

export const walletSchema = z
  .strictObject({
    id: uuid,
    chain: resolvedChain,
    asset,
    address: z.string().meta({ description: "The deposit address, in the chain's own format (EIP-55 hex, or TRON base58)" }),
    status: z.enum(WALLET_STATUSES),
    customer_id: uuid.nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'Wallet', examples: [EXAMPLES.wallet] });
export type WalletView = z.infer<typeof walletSchema>;

/** The detail view: the list view plus the wallet's own external_ref. */
export const walletDetailSchema = walletSchema.extend({ external_ref: z.string().nullable() }).meta({ id: 'WalletDetail', examples: [{ ...EXAMPLES.wallet, external_ref: 'order-7' }] });

export const presentWallet = (w: Wallet): WalletView => ({
  id: w.id,
  chain: w.network,
  asset: w.asset,
  address: w.address,
  status: w.status,
  customer_id: w.customerId,
  created_at: w.createdAt.toISOString(),
});

interface WalletDeps {
  create: CreateWallet;
  read: ReadWallets;
  archive: ArchiveWallet;
  idempotency: RunIdempotently;
}

export const walletsResource: Resource<WalletDeps> = {
  mount: '/wallets',
  tag: 'Wallets',
  deps: (resolve) => ({
    create: resolve(CreateWallet),
    read: resolve(ReadWallets),
    archive: resolve(ArchiveWallet),
    idempotency: resolve(RunIdempotently),
  }),
  routes: [
    {
      operationId: 'createWallet',
      summary: 'Create a deposit wallet: a new HD address on the key\'s network',
      method: 'post',
      path: '/',
      access: scope('wallets:write'),
      idempotent: true,
      request: { body: createBody },
      responses: { 201: { description: 'The wallet', schema: walletSchema } },
      errors: ['CHAIN_NOT_ENABLED', 'SERVICE_UNAVAILABLE'],
      handle: (deps) =>
        idempotent(deps.idempotency, async (req, res) => {
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
      operationId: 'listWallets',
      summary: 'List wallets, newest first (archived ones only when asked for)',
      method: 'get',
      path: '/',
      access: scope('wallets:read'),
      request: { query: listQuery },
      responses: { 200: { description: 'A page of wallets', schema: pageOf(walletSchema) } },
      errors: [],
      handle: (deps) => async (req, res) => {
        const principal = principalOf(res);
        const q = parse(listQuery, req.query);
        const network = resolveChainFilter(q.chain, principal.side);
        const page = await deps.read.list(principal, { status: q.status, network, asset: q.asset, customerId: q.customer_id }, q);
        res.json(mapPage(page, presentWallet));
      },
    },
    {
      operationId: 'getWallet',
      summary: 'Get a wallet, with its external_ref',
      method: 'get',
      path: '/:id',
      access: scope('wallets:read'),
      request: { params: idParams },
      responses: { 200: { description: 'The wallet', schema: walletDetailSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        const { wallet, externalRef } = await deps.read.get(principalOf(res), String(req.params.id));
        const view: z.infer<typeof walletDetailSchema> = { ...presentWallet(wallet), external_ref: externalRef };
        res.json(view);
      },
    },
    {
      operationId: 'archiveWallet',
      summary: 'Archive a wallet: left out of lists, still monitored',
      method: 'post',
      path: '/:id/archive',
      access: scope('wallets:write'),
      idempotent: true,
      request: { params: idParams },
      responses: { 200: { description: 'The wallet, archived', schema: walletSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) =>
        idempotent(deps.idempotency, async (req, res) => {
          const wallet = await deps.archive.execute(principalOf(res), String(req.params.id));
          return { status: 200, body: presentWallet(wallet) };
        }),
    },
  ],
};
