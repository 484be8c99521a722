// /v2/transactions (docs/api.md#deposits): GET /transactions/deposits (list
// with filters), GET /transactions/deposits/{id} (the deposit, 2.4) and GET
// /transactions (deposits and, once they exist, withdrawals; ADR 0022).
import { ReadWithdrawals } from '../../application/withdrawals/read-withdrawals.js';
import { withdrawalRecord } from '../../application/withdrawals/withdrawal-view.js';
import { withdrawalListQuery, withdrawalRecordSchema } from './withdrawals.js';
import { z } from 'zod';
import { depositView } from '../../application/deposits/deposit-view.js';
import { ReadDeposits, type TransactionRecord } from '../../application/deposits/read-deposits.js';
import { scope } from '../../domain/auth/principal.js';
import { mapPage } from '../../domain/pagination.js';
import { principalOf } from './authenticate.js';
import { chainFilter, resolveChainFilter } from './chain-filter.js';
import { amountString, asset, idParams, pageOf, resolvedChain, timestamp, uuid } from './common-schemas.js';
import { pageQuery } from './pagination.js';
import type { Resource } from './route.js';
import { parse } from './validation.js';

const DEPOSIT_STATUSES = ['DETECTED', 'CONFIRMING', 'CONFIRMED', 'SWEPT', 'FAILED', 'FLAGGED', 'REJECTED'] as const;

const lowerUuid = z
  .uuid()
  .transform((id) => id.toLowerCase())
  .meta({ override: { type: 'string', format: 'uuid' } });

const feeRecord = z
  .strictObject({ fee_amount: amountString, net_amount: amountString })
  .meta({ id: 'FeeRecord', description: 'The service fee deducted at credit, and what entered the balance' });

const EXAMPLE = {
  id: '0b7c1f0e-3f4a-4c59-9a61-5b8f5e0f7b21',
  wallet_id: '5a04210c-be97-40eb-a523-145ff1bac77b',
  chain: 'ETH_TESTNET',
  asset: 'USDT_ETH',
  txid: '0x23a8eac378babfa775e50a1a8f264d851a188d6cc7f11984441ed136391e0413',
  amount: '25.000000',
  status: 'CONFIRMED',
  confirmations: 2,
  required_confirmations: 2,
  detected_at: '2026-11-24T00:37:58.120Z',
  confirmed_at: '2026-11-24T00:37:59.310Z',
  swept_at: null,
  fee_record: { fee_amount: '3.000000', net_amount: '22.000000' },
};

export const depositSchema = z
  .strictObject({
    id: uuid,
    wallet_id: uuid,
    chain: resolvedChain,
    asset,
    txid: z.string().nullable(),
    amount: amountString,
    status: z.enum(DEPOSIT_STATUSES),
    confirmations: z.number().int().min(0),
    required_confirmations: z.number().int().min(0).meta({ description: 'Fixed when the deposit was first seen' }),
    detected_at: timestamp,
    confirmed_at: timestamp.nullable(),
    swept_at: timestamp.nullable(),
    fee_record: feeRecord.nullable(),
  })
  .meta({ id: 'Deposit', examples: [EXAMPLE] });

const transactionSchema = z
  .strictObject({
    id: uuid,
    type: z.enum(['DEPOSIT', 'WITHDRAWAL']),
    chain: resolvedChain,
    asset,
    txid: z.string().nullable(),
    amount: amountString,
    status: z.string().meta({ description: 'The deposit or withdrawal status' }),
    fee_record: feeRecord.nullable(),
    created_at: timestamp.meta({ description: 'When it started: detected_at of a deposit, requested_at of a withdrawal' }),
  })
  .meta({ id: 'TransactionRecord' });

const depositsQuery = pageQuery.extend({
  status: z.enum(DEPOSIT_STATUSES).optional(),
  chain: chainFilter,
  wallet_id: lowerUuid.optional(),
  customer_id: lowerUuid.optional(),
});

const transactionsQuery = pageQuery.extend({
  type: z.enum(['DEPOSIT', 'WITHDRAWAL']).optional(),
  chain: chainFilter,
});

const presentTransaction = (t: TransactionRecord): z.infer<typeof transactionSchema> => {
  if (t.type === 'WITHDRAWAL') {
    const w = withdrawalRecord(t.withdrawal);
    return { id: w.id, type: t.type, chain: w.chain, asset: w.asset, txid: w.txid, amount: w.amount, status: w.status, fee_record: w.fee_record, created_at: w.requested_at };
  }
  const v = depositView(t.deposit);
  return { id: v.id, type: t.type, chain: v.chain as never, asset: v.asset as never, txid: v.txid, amount: v.amount, status: v.status, fee_record: v.fee_record, created_at: v.detected_at };
};

export const transactionsResource: Resource<{ read: ReadDeposits; withdrawals: ReadWithdrawals }> = {
  mount: '/transactions',
  tag: 'Deposits and transactions',
  deps: (resolve) => ({ read: resolve(ReadDeposits), withdrawals: resolve(ReadWithdrawals) }),
  routes: [
    {
      operationId: 'listDeposits',
      summary: 'List deposits, newest first',
      method: 'get',
      path: '/deposits',
      access: scope('transactions:read'),
      request: { query: depositsQuery },
      responses: { 200: { description: 'A page of deposits', schema: pageOf(depositSchema) } },
      errors: [],
      handle: (deps) => async (req, res) => {
        const principal = principalOf(res);
        const q = parse(depositsQuery, req.query);
        const network = resolveChainFilter(q.chain, principal.side);
        const page = await deps.read.list(principal, { status: q.status, network, walletId: q.wallet_id, customerId: q.customer_id }, q);
        res.json(mapPage(page, depositView));
      },
    },
    {
      operationId: 'getDeposit',
      summary: 'Get a deposit',
      method: 'get',
      path: '/deposits/:id',
      access: scope('transactions:read'),
      request: { params: idParams },
      responses: { 200: { description: 'The deposit', schema: depositSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        res.json(depositView(await deps.read.get(principalOf(res), String(req.params.id))));
      },
    },
    {
      operationId: 'listWithdrawalRecords',
      summary: 'List withdrawals as transaction records (with fee_record), newest request first',
      method: 'get',
      path: '/withdrawals',
      access: scope('transactions:read'),
      request: { query: withdrawalListQuery },
      responses: { 200: { description: 'A page of withdrawal records', schema: pageOf(withdrawalRecordSchema) } },
      errors: [],
      handle: (deps) => async (req, res) => {
        const principal = principalOf(res);
        const q = parse(withdrawalListQuery, req.query);
        const page = await deps.withdrawals.list(principal, 'transactions:read', { status: q.status, network: resolveChainFilter(q.chain, principal.side) }, q);
        res.json(mapPage(page, withdrawalRecord));
      },
    },
    {
      operationId: 'listTransactions',
      summary: 'List deposits and withdrawals together, newest first',
      method: 'get',
      path: '/',
      access: scope('transactions:read'),
      request: { query: transactionsQuery },
      responses: { 200: { description: 'A page of transactions', schema: pageOf(transactionSchema) } },
      errors: [],
      handle: (deps) => async (req, res) => {
        const principal = principalOf(res);
        const q = parse(transactionsQuery, req.query);
        const page = await deps.read.transactions(principal, { type: q.type, network: resolveChainFilter(q.chain, principal.side) }, q);
        res.json(mapPage(page, presentTransaction));
      },
    },
  ],
};
