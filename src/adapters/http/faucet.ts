// /v2/sandbox/faucet (docs/api.md#sandbox-faucet): ask for a drip of test
// assets to a sandbox wallet (idempotent under the Idempotency-Key header),
// and follow it. The body's faulty assets list and items get the faucet's own
// 400s (FAUCET_NO_ASSETS, FAUCET_INVALID_ASSET, FAUCET_INVALID_AMOUNT); any
// other fault of the body is VALIDATION_ERROR.
import { z } from 'zod';
import { dripView } from '../../application/faucet/drip-view.js';
import { ReadDrips } from '../../application/faucet/read-drips.js';
import { RequestDrip } from '../../application/faucet/request-drip.js';
import { RunIdempotently } from '../../application/idempotency/run-idempotently.js';
import { scope } from '../../domain/auth/principal.js';
import { DomainError, type ErrorCode } from '../../domain/errors.js';
import { DRIP_ITEM_STATUSES, DRIP_STATUSES } from '../../domain/faucet/faucet.js';
import { BASE_CHAINS } from '../../domain/money/networks.js';
import { principalOf } from './authenticate.js';
import { amountString, asset, resolvedChain, uuid } from './common-schemas.js';
import { idempotent } from './idempotency.js';
import type { Resource } from './route.js';
import { parse } from './validation.js';

export const dripBody = z.strictObject({
  chain: z.enum(BASE_CHAINS),
  address: z.string().max(200).meta({ description: "One of the workspace's sandbox wallet addresses on the chain" }),
  assets: z
    .array(
      z.strictObject({
        symbol: z.string().max(40).meta({ description: "The asset, which must be the wallet's own (a wallet watches its own asset only)", example: 'USDT_ETH' }),
        amount: z.string().max(100).optional().meta({ description: "A positive decimal string with at most the asset's places; omitted: the asset's default", example: '100' }),
      }),
    )
    .min(1),
});

export const dripSchema = z
  .strictObject({
    drip_id: uuid,
    status: z.enum(DRIP_STATUSES).meta({ description: 'QUEUED, SENDING (an item broadcast), COMPLETED (every item confirmed on chain) or FAILED' }),
    chain: resolvedChain,
    address: z.string(),
    items: z.array(
      z.strictObject({
        asset,
        amount: amountString,
        status: z.enum(DRIP_ITEM_STATUSES).meta({ description: 'QUEUED, SENT (broadcast), CONFIRMED or FAILED' }),
      }),
    ),
  })
  .meta({ id: 'Drip' });

const dripParams = z.object({ drip_id: z.string().meta({ override: { type: 'string', format: 'uuid' } }) });

/** The faucet's own 400 for a faulty assets list or item; null for any other fault (VALIDATION_ERROR). */
function faucetCodeOf(issue: z.core.$ZodIssue): ErrorCode | null {
  const [first, , field] = issue.path;
  if (first !== 'assets' || issue.code === 'unrecognized_keys') return null;
  if (issue.path.length === 1) return 'FAUCET_NO_ASSETS';
  return field === 'amount' ? 'FAUCET_INVALID_AMOUNT' : 'FAUCET_INVALID_ASSET';
}

const ORDER: readonly ErrorCode[] = ['FAUCET_NO_ASSETS', 'FAUCET_INVALID_ASSET', 'FAUCET_INVALID_AMOUNT'];

function parseDripBody(input: unknown): z.infer<typeof dripBody> {
  const res = dripBody.safeParse(input);
  if (res.success) return res.data;
  const codes = res.error.issues.map(faucetCodeOf);
  if (codes.some((c) => c === null)) return parse(dripBody, input); // VALIDATION_ERROR with every failing field
  const code = ORDER.find((c) => codes.includes(c))!;
  const issues = res.error.issues.filter((_, i) => codes[i] === code).map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  throw new DomainError(code, `${issues[0]!.path}: ${issues[0]!.message}`, issues);
}

interface FaucetDeps {
  request: RequestDrip;
  read: ReadDrips;
  idempotency: RunIdempotently;
}

export const faucetResource: Resource<FaucetDeps> = {
  mount: '/sandbox/faucet',
  tag: 'Sandbox faucet',
  deps: (resolve) => ({ request: resolve(RequestDrip), read: resolve(ReadDrips), idempotency: resolve(RunIdempotently) }),
  routes: [
    {
      operationId: 'requestDrip',
      summary: 'Ask for test assets to a sandbox wallet: queued, sent from the faucet dispenser, and credited as a normal deposit (test keys only)',
      method: 'post',
      path: '/',
      access: scope('wallets:write'),
      idempotent: true,
      request: { body: dripBody },
      responses: { 201: { description: 'The drip, QUEUED', schema: dripSchema } },
      errors: [
        'FAUCET_NO_ASSETS',
        'FAUCET_INVALID_ASSET',
        'FAUCET_INVALID_AMOUNT',
        'FAUCET_ONLY_SANDBOX',
        'FAUCET_NOT_SANDBOX',
        'FAUCET_ADDRESS_NOT_FOUND',
        'FAUCET_TOO_MANY_ITEMS',
        'FAUCET_DUPLICATE_ASSET',
        'FAUCET_AMOUNT_OVER_CAP',
        'FAUCET_RATE_LIMITED',
        'FAUCET_NATIVE_REQUIRES_DEPOSIT',
        'FAUCET_NATIVE_BUDGET_EXCEEDED',
        'FAUCET_DISPENSER_EXHAUSTED',
      ],
      handle: (deps) =>
        idempotent(deps.idempotency, async (req, res) => {
          const principal = principalOf(res);
          // Who may ask comes before what is asked (a live key learns nothing from its body).
          deps.request.admit(principal);
          const body = parseDripBody(req.body);
          const drip = await deps.request.execute(principal, { chain: body.chain, address: body.address, assets: body.assets });
          return { status: 201, body: dripView(drip) };
        }),
    },
    {
      operationId: 'getDrip',
      summary: 'Follow a drip: its status and each item\'s',
      method: 'get',
      path: '/:drip_id',
      access: scope('wallets:read'),
      request: { params: dripParams },
      responses: { 200: { description: 'The drip', schema: dripSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        res.json(dripView(await deps.read.get(principalOf(res), String(req.params.drip_id))));
      },
    },
  ],
};
