// ops deposit unexpected list | credit | return: money that arrived at a
// deposit address in another asset than its wallet's (issue 31, ADR 0032,
// docs/operations.md#money-that-arrives-where-no-wallet-watches-it). A credit
// runs in the chain-worker, which reads the transaction again on its node.
import { z } from 'zod';
import { arrivalView, RecoverUnexpected } from '../../application/deposits/recover-unexpected.js';
import { UNEXPECTED_STATUSES } from '../../domain/deposits/unexpected-deposit.js';
import { NETWORKS } from '../../domain/money/networks.js';
import { defineCommand, type OpsCommand } from './command.js';
import { inChainWorker } from './deposit-commands.js';

type ArrivalView = ReturnType<typeof arrivalView>;

const line = (a: ArrivalView) =>
  `${a.id} ${a.status} ${a.chain}: ${a.amount} ${a.asset} to ${a.address} (a ${a.wallet_asset} wallet ${a.wallet_id}, workspace ${a.workspace_id}) from ${a.from_address}, tx ${a.txid}` +
  (a.deposit_id ? ` → deposit ${a.deposit_id}` : '') +
  (a.return_transfer_id ? ` → return transfer ${a.return_transfer_id}` : '');

const id = z.uuid({ message: 'must be the id of an unexpected arrival (ops deposit unexpected list)' });

const unexpected = defineCommand({
  path: ['deposit', 'unexpected'],
  positionals: ['action'],
  summary:
    "Money that arrived at a deposit address in another asset than its wallet's: deposit unexpected list [--status LISTED|CREDITED|RETURNING|RETURNED] [--chain NETWORK] [--limit N]; deposit unexpected credit --id ID (a deposit of what it is for the wallet's workspace, once; runs in the chain-worker); deposit unexpected return --id ID (sent back to its sender from the deposit address, once)",
  flags: { status: { type: 'string' }, chain: { type: 'string' }, limit: { type: 'string' }, id: { type: 'string' } },
  input: z.discriminatedUnion('action', [
    z.object({
      action: z.literal('list'),
      status: z.enum(UNEXPECTED_STATUSES).optional(),
      chain: z.enum(NETWORKS).optional(),
      limit: z
        .string()
        .regex(/^[1-9]\d{0,3}$/, 'must be a whole number from 1 to 1000')
        .transform(Number)
        .pipe(z.number().max(1000, 'must be a whole number from 1 to 1000'))
        .optional(),
    }),
    z.object({ action: z.literal('credit'), id }),
    z.object({ action: z.literal('return'), id }),
  ]),
  async run(ctx, input) {
    const recover = ctx.resolve(RecoverUnexpected);
    if (input.action === 'list') {
      const rows = await recover.list({ status: input.status, network: input.chain }, input.limit ?? 100);
      return { unexpected: rows.map(arrivalView) };
    }
    if (input.action === 'return') return { action: 'return', ...arrivalView(await recover.markReturn(input.id)) };
    const arrival = await recover.find(input.id);
    if (!arrival) return { ok: false, action: 'credit', id: input.id, error: `no unexpected arrival ${input.id}` };
    return { action: 'credit', id: input.id, ...(await inChainWorker(ctx, arrival.network, 'deposit.credit-unexpected', { network: arrival.network, id: input.id }, 'the credit')) };
  },
  describe: (r) => {
    if (Array.isArray(r.unexpected)) return (r.unexpected as ArrivalView[]).map(line).join('\n') || 'no unexpected arrivals';
    if (r.ok === false) return `${r.action as string} of ${r.id as string}: ${r.error as string}`;
    if (r.action === 'return') return `${r.id as string} is ${r.status as string}: the chain-worker sends it back to ${r.from_address as string}`;
    const outcome = r.outcome as string;
    if (outcome === 'not_on_chain') return `credit of ${r.id as string}: ${r.reason as string}; nothing changed`;
    return `credit of ${r.id as string}: ${outcome === 'credited' ? 'now' : 'already'} the deposit ${r.deposit_id as string} (credited at its confirmations, then swept)`;
  },
});

export const UNEXPECTED_COMMANDS: OpsCommand[] = [unexpected];
