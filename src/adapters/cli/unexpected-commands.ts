// ops deposit unexpected list | credit | return: money that arrived at a
// deposit address in another asset than its wallet's (issue 31, ADR 0032,
// docs/operations.md#money-that-arrives-where-no-wallet-watches-it). A credit
// runs in the chain-worker, which reads the transaction again on its node.
import { z } from 'zod';
import { RecoverUnexpected, arrivalView } from '../../application/deposits/recover-unexpected.js';
import { DomainError } from '../../domain/errors.js';
import { UNEXPECTED_STATUSES } from '../../domain/deposits/unexpected-deposit.js';
import { defineCommand, type OpsCommand } from './command.js';
import { networkFlag } from './network-flag.js';
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
  slow: true,
  summary:
    "Money that arrived at a deposit address in another asset than its wallet's: deposit unexpected list [--status LISTED|CREDITED|RETURNING|RETURNED] [--chain NETWORK] [--limit N]; deposit unexpected credit --id ID (a deposit of what it is for the wallet's workspace, once); deposit unexpected return --id ID (sent back to its sender from the deposit address once it has its confirmations, once); credit and return run in the chain-worker, which reads the transaction again",
  flags: { status: { type: 'string' }, chain: { type: 'string' }, limit: { type: 'string' }, id: { type: 'string' } },
  input: (mode) =>
    z.discriminatedUnion('action', [
      z.object({
        action: z.literal('list'),
        status: z.enum(UNEXPECTED_STATUSES).optional(),
        chain: networkFlag(mode.side).optional(),
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
    const arrival = await recover.find(input.id);
    if (!arrival) throw new DomainError('NOT_FOUND', `no unexpected arrival ${input.id}`);
    const job = input.action === 'credit' ? 'deposit.credit-unexpected' : 'deposit.return-unexpected';
    return { action: input.action, id: input.id, ...(await inChainWorker(ctx, arrival.network, job, { network: arrival.network, id: input.id }, `the ${input.action}`)) };
  },
  describe: (r) => {
    if (Array.isArray(r.unexpected)) return (r.unexpected as ArrivalView[]).map(line).join('\n') || 'no unexpected arrivals';
    const what = `${r.action as string} of ${r.id as string}`;
    if (r.ok === false) return `${what}: ${r.error as string}`;
    switch (r.outcome) {
      case 'not_on_chain':
        return `${what}: ${r.reason as string}; nothing changed`;
      case 'credited':
      case 'already_credited':
        return `${what}: ${r.outcome === 'credited' ? 'now' : 'already'} the deposit ${r.deposit_id as string} (credited at its confirmations, then swept)`;
      default:
        return r.status === 'RETURNED'
          ? `${what}: RETURNED, sent back to ${r.from_address as string} (transfer ${r.return_transfer_id as string})`
          : `${what}: RETURNING, the chain-worker sends it back to ${r.from_address as string}`;
    }
  },
});

export const UNEXPECTED_COMMANDS: OpsCommand[] = [unexpected];
