// /v2/withdrawals (docs/api.md#withdrawals): create (idempotent under the
// Idempotency-Key header or the deprecated body field idempotency_key; a
// replay answers 200), list, read and cancel. GET /v2/transactions/withdrawals
// is in deposits.ts with the other transaction lists.
import { z } from 'zod';
import { RunIdempotently } from '../../application/idempotency/run-idempotently.js';
import { CancelWithdrawal } from '../../application/withdrawals/cancel-withdrawal.js';
import { CreateWithdrawal } from '../../application/withdrawals/create-withdrawal.js';
import { ReadWithdrawals } from '../../application/withdrawals/read-withdrawals.js';
import { withdrawalCreated, withdrawalDetail } from '../../application/withdrawals/withdrawal-view.js';
import { scope } from '../../domain/auth/principal.js';
import { ASSETS, BASE_CHAINS } from '../../domain/money/networks.js';
import { mapPage } from '../../domain/pagination.js';
import { WITHDRAWAL_STATUSES } from '../../domain/withdrawals/withdrawal.js';
import { principalOf } from './authenticate.js';
import { chainFilter, resolveChainFilter } from './chain-filter.js';
import { amountString, asset, idParams, pageOf, resolvedChain, timestamp, uuid } from './common-schemas.js';
import { idempotencyKeyOf, idempotent, type IdempotentOptions } from './idempotency.js';
import { pageQuery } from './pagination.js';
import type { Resource } from './route.js';
import { parse } from './validation.js';

export const createWithdrawalBody = z.strictObject({
  chain: z.enum(BASE_CHAINS),
  asset: z.enum(ASSETS),
  amount: z.string().meta({ description: "A decimal string with at most the asset's places, e.g. \"100.5\"", example: '100.000000' }),
  destination_address: z.string().max(200).meta({ description: 'TRON base58, or EIP-55 checksummed hex on BSC and ETH' }),
  idempotency_key: z.string().min(1).max(128).nullish().meta({ description: 'Deprecated: use the Idempotency-Key header, which wins when both are sent; null is the same as leaving it out' }),
});

const status = z.enum(WITHDRAWAL_STATUSES);
const feeRecord = z.strictObject({ fee_amount: amountString, net_amount: amountString }).nullable();

export const withdrawalCreatedSchema = z
  .strictObject({
    id: uuid,
    chain: resolvedChain,
    asset,
    amount: amountString,
    fee: amountString.meta({ description: 'The withdrawal fee, taken from the balance at broadcast' }),
    net_amount: amountString.meta({ description: 'What the destination receives: amount − fee' }),
    status,
    idempotency_key: z.string().nullable().meta({ description: 'The key the request was made under (header or body); null with neither' }),
    requested_at: timestamp,
  })
  .meta({ id: 'WithdrawalCreated' });

export const withdrawalDetailSchema = z
  .strictObject({
    id: uuid,
    chain: resolvedChain,
    asset,
    amount: amountString,
    status,
    txid: z.string().nullable(),
    destination_address: z.string(),
    idempotency_key: z.string().nullable(),
    requested_at: timestamp,
    confirmed_at: timestamp.nullable(),
    fee_record: feeRecord.meta({ description: 'Set once the fee was taken (at broadcast); null before, and for a cancelled or failed withdrawal' }),
  })
  .meta({ id: 'Withdrawal' });

export const withdrawalRecordSchema = z
  .strictObject({
    id: uuid,
    chain: resolvedChain,
    asset,
    txid: z.string().nullable(),
    amount: amountString,
    status,
    destination_address: z.string(),
    requested_at: timestamp,
    fee_record: feeRecord,
  })
  .meta({ id: 'WithdrawalRecord' });

export const withdrawalListQuery = pageQuery.extend({ status: status.optional(), chain: chainFilter });

interface WithdrawalDeps {
  create: CreateWithdrawal;
  read: ReadWithdrawals;
  cancel: CancelWithdrawal;
  idempotency: RunIdempotently;
}

const bodyKey: IdempotentOptions = {
  replayStatus: 200,
  fallbackKey: (req) => (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>).idempotency_key : undefined),
};

export const withdrawalsResource: Resource<WithdrawalDeps> = {
  mount: '/withdrawals',
  tag: 'Withdrawals',
  deps: (resolve) => ({
    create: resolve(CreateWithdrawal),
    read: resolve(ReadWithdrawals),
    cancel: resolve(CancelWithdrawal),
    idempotency: resolve(RunIdempotently),
  }),
  routes: [
    {
      operationId: 'createWithdrawal',
      summary: "Request a withdrawal: the amount is locked from available at once; on mainnet the owner's security settings apply",
      method: 'post',
      path: '/',
      access: scope('withdrawals:write'),
      idempotent: true,
      request: { body: createWithdrawalBody },
      responses: {
        201: { description: 'The withdrawal, PENDING (PENDING_APPROVAL above the approval threshold)', schema: withdrawalCreatedSchema },
        200: { description: 'A replay under the same idempotency key: the original response, with Idempotent-Replay: true', schema: withdrawalCreatedSchema },
      },
      errors: [
        'INVALID_DESTINATION_ADDRESS',
        'INSUFFICIENT_BALANCE',
        'AMOUNT_TOO_SMALL',
        'CHAIN_NOT_ENABLED',
        'DESTINATION_IS_INTERNAL',
        'WITHDRAWALS_FROZEN',
        'WITHDRAWAL_POLICY_VIOLATION',
        'SERVICE_UNAVAILABLE',
      ],
      handle: (deps) =>
        idempotent(
          deps.idempotency,
          async (req, res) => {
            const body = parse(createWithdrawalBody, req.body);
            const withdrawal = await deps.create.execute(principalOf(res), {
              chain: body.chain,
              asset: body.asset,
              amount: body.amount,
              destination: body.destination_address,
              idempotencyKey: idempotencyKeyOf(req, bodyKey) ?? null,
            });
            return { status: 201, body: withdrawalCreated(withdrawal) };
          },
          bodyKey,
        ),
    },
    {
      operationId: 'listWithdrawals',
      summary: 'List withdrawals, newest request first',
      method: 'get',
      path: '/',
      access: scope('withdrawals:read'),
      request: { query: withdrawalListQuery },
      responses: { 200: { description: 'A page of withdrawals', schema: pageOf(withdrawalDetailSchema) } },
      errors: [],
      handle: (deps) => async (req, res) => {
        const principal = principalOf(res);
        const q = parse(withdrawalListQuery, req.query);
        const page = await deps.read.list(principal, 'withdrawals:read', { status: q.status, network: resolveChainFilter(q.chain, principal.side) }, q);
        res.json(mapPage(page, withdrawalDetail));
      },
    },
    {
      operationId: 'getWithdrawal',
      summary: 'Get a withdrawal, with its destination',
      method: 'get',
      path: '/:id',
      access: scope('withdrawals:read'),
      request: { params: idParams },
      responses: { 200: { description: 'The withdrawal', schema: withdrawalDetailSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        res.json(withdrawalDetail(await deps.read.get(principalOf(res), String(req.params.id))));
      },
    },
    {
      operationId: 'cancelWithdrawal',
      summary: 'Cancel a withdrawal not picked up for sending yet: the amount goes back to available',
      method: 'post',
      path: '/:id/cancel',
      access: scope('withdrawals:write'),
      request: { params: idParams },
      responses: { 200: { description: 'The withdrawal, CANCELLED', schema: withdrawalDetailSchema } },
      errors: ['NOT_FOUND', 'WITHDRAWAL_NOT_CANCELLABLE'],
      handle: (deps) => async (req, res) => {
        res.json(withdrawalDetail(await deps.cancel.execute(principalOf(res), String(req.params.id))));
      },
    },
  ],
};

