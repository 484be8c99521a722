// ops screening deny | allow, deposit release | reject | rescan: the
// operator's side of deposits (docs/operations.md#deposits). A rescan runs in
// the chain-worker, which has the node: the command queues it and waits for
// its result.
import { z } from 'zod';
import { depositView } from '../../application/deposits/deposit-view.js';
import { ManageScreening, type ScreeningChange } from '../../application/deposits/manage-screening.js';
import { ReviewDeposit } from '../../application/deposits/review-deposit.js';
import { TOKENS } from '../../application/tokens.js';
import { ERROR_CODES, type ErrorCode } from '../../domain/error-catalogue.js';
import { DomainError } from '../../domain/errors.js';
import type { UnitOfWork } from '../../domain/ports.js';
import type { JobPayloads } from '../../domain/jobs/job-names.js';
import { baseChainOf, type Network } from '../../domain/money/networks.js';
import { defineCommand, progressOf, type OpsCommand, type OpsContext } from './command.js';
import { networkFlag } from './network-flag.js';

const pretty = (r: Record<string, unknown>) => JSON.stringify(r, null, 2);
const TXID = { ETH: /^0x[0-9a-fA-F]{64}$/, BSC: /^0x[0-9a-fA-F]{64}$/, TRON: /^(0x)?[0-9a-fA-F]{64}$/ } as const;
/** How long a command run by the chain-worker (deposit rescan, deposit unexpected credit and return) waits for its answer. */
const CHAIN_WORKER_WAIT_MS = 60_000;

/**
 * Queues a job for the chain-worker that scans `network` (it has the node) and waits for its output:
 * `{ ok: false, error }` when no chain-worker scans it, the job fails, or none answers in time.
 */
export async function inChainWorker<N extends 'deposit.rescan' | 'deposit.credit-unexpected' | 'deposit.return-unexpected'>(
  ctx: OpsContext,
  network: Network,
  name: N,
  data: JobPayloads[N],
  what: string,
): Promise<Record<string, unknown>> {
  const boss = ctx.boss;
  if (!boss) throw new Error('the job queue is not available');
  // Only a chain-worker scanning the network has its node: with none, nothing would ever answer.
  if (!(await ctx.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) => tx.scanState.scanning(network)))) {
    return { ok: false, error: `no chain-worker is scanning ${network} (no node configured for it, or no chain-worker running); nothing was queued` };
  }
  const id = await boss.send(name, data);
  if (!id) throw new DomainError('CONFLICT', `${what} could not be queued`);
  progressOf(ctx)(`${what} is queued (job ${id}); waiting for the chain-worker scanning ${network}, at most ${CHAIN_WORKER_WAIT_MS / 1000} s`);
  const deadline = Date.now() + CHAIN_WORKER_WAIT_MS;
  while (Date.now() < deadline) {
    const job = await boss.getJobById(name, id);
    if (job?.state === 'completed') {
      const output = job.output as Record<string, unknown>;
      // A refusal the chain-worker answered with its code (a DomainError there) is the command's, as any other.
      if (output.ok === false && typeof output.code === 'string' && (ERROR_CODES as string[]).includes(output.code)) {
        throw new DomainError(output.code as ErrorCode, String(output.error));
      }
      return { job_id: id, ...output };
    }
    if (job?.state === 'failed') {
      const out = job.output as { message?: string } | null;
      return { ok: false, job_id: id, error: out?.message ?? `${what} failed` };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { ok: false, job_id: id, error: `no chain-worker answered within ${CHAIN_WORKER_WAIT_MS / 1000} s; ${what} stays queued and runs when one does` };
}

const screeningResult = (r: ScreeningChange) => ({ entries: r.entries, changed: r.changed });

function review(decision: 'release' | 'reject'): OpsCommand {
  return defineCommand({
    path: ['deposit', decision],
    summary:
      decision === 'release'
        ? 'Release a FLAGGED deposit: CONFIRMED, credited, DEPOSIT_CONFIRMED (--id DEPOSIT_ID)'
        : 'Reject a FLAGGED deposit: REJECTED, never credited, DEPOSIT_REJECTED (--id DEPOSIT_ID)',
    flags: { id: { type: 'string' } },
    input: z.object({ id: z.string().min(1).max(64) }),
    async run(ctx, input) {
      const d = await ctx.resolve(ReviewDeposit).execute(input.id, decision);
      return { ...depositView(d), workspace_id: d.workspaceId };
    },
    describe: (r) => `deposit ${r.id as string} is ${r.status as string}:\n${pretty(r)}`,
  });
}

export const DEPOSIT_COMMANDS: OpsCommand[] = [
  defineCommand({
    path: ['screening', 'deny'],
    summary: 'Deny a sender: its deposits are FLAGGED at their threshold and not credited (--address A; hex for ETH and BSC, T... for TRON)',
    flags: { address: { type: 'string' } },
    input: z.object({ address: z.string().min(1).max(128) }),
    run: async (ctx, input) => screeningResult(await ctx.resolve(ManageScreening).deny(input.address)),
    describe: (r) => `${r.changed ? 'denied' : 'already denied; nothing changed'}:\n${pretty(r)}`,
  }),
  defineCommand({
    path: ['screening', 'allow'],
    summary: 'Take a sender off the deny list (--address A)',
    flags: { address: { type: 'string' } },
    input: z.object({ address: z.string().min(1).max(128) }),
    run: async (ctx, input) => screeningResult(await ctx.resolve(ManageScreening).allow(input.address)),
    describe: (r) => `${r.changed ? 'allowed again' : 'was not denied; nothing changed'}:\n${pretty(r)}`,
  }),
  review('release'),
  review('reject'),
  defineCommand({
    path: ['deposit', 'rescan'],
    slow: true,
    summary: 'Look at one transaction again and record its missed deposits, once (--chain ETH_TESTNET --txid 0x...); runs in the chain-worker',
    flags: { chain: { type: 'string' }, txid: { type: 'string' } },
    input: (mode) =>
      z
        .object({ chain: networkFlag(mode.side), txid: z.string().min(1).max(100).describe('the transaction id, 64 hex digits (0x first on ETH and BSC)') })
        .refine((v) => TXID[baseChainOf(v.chain)].test(v.txid), { message: 'not a transaction id of that chain (64 hex digits)', path: ['txid'] }),
    async run(ctx, input) {
      const txid = baseChainOf(input.chain) === 'TRON' ? input.txid.replace(/^0x/, '').toLowerCase() : input.txid.toLowerCase();
      return { chain: input.chain, txid, ...(await inChainWorker(ctx, input.chain, 'deposit.rescan', { network: input.chain, txid }, 'the rescan')) };
    },
    describe: (r) =>
      r.ok === false
        ? `rescan of ${r.txid as string}: ${r.error as string}`
        : r.transaction === 'success'
          ? `rescan of ${r.txid as string}: ${r.found as number} transfer(s) to monitored addresses, ${r.recorded as number} newly recorded:\n${pretty(r)}`
          : `rescan of ${r.txid as string}: the transaction is ${r.transaction === 'reverted' ? 'reverted' : 'not in a block of the node (unknown, pending or reorged out)'}; nothing recorded:\n${pretty(r)}`,
  }),
];
