// ops commitment create|suspend|resume|end|settle|show and ops fx set|show
// (docs/operations.md#fee-commitments): the monthly fee commitments the
// operator agrees with workspaces, their settlement, and the EURC/USD rate
// EURC fees and debits are converted at.
import { z } from 'zod';
import { ManageCommitments } from '../../application/commitments/manage-commitments.js';
import { ReadCommitment } from '../../application/commitments/read-commitment.js';
import { SettleCommitments } from '../../application/commitments/settle-commitments.js';
import { SETTLEMENT_ASSETS, parseMonth } from '../../domain/commitments/commitment.js';
import { defineCommand, type OpsCommand } from './command.js';

const time = z.iso.datetime({ offset: true }).transform((t) => new Date(t));

export const COMMITMENT_COMMANDS: OpsCommand[] = [
  defineCommand({
    path: ['commitment', 'create'],
    summary:
      'Agree a monthly fee floor: commitment create --workspace ID --floor USD --settlement-asset A --starts-at T [--ends-at T] [--auto-debit] [--contract-reference REF] [--backdate]',
    flags: {
      workspace: { type: 'string' },
      floor: { type: 'string' },
      'settlement-asset': { type: 'string' },
      'starts-at': { type: 'string' },
      'ends-at': { type: 'string' },
      'auto-debit': { type: 'boolean' },
      'contract-reference': { type: 'string' },
      backdate: { type: 'boolean' },
    },
    input: z.object({
      workspace: z.uuid(),
      floor: z.string(),
      'settlement-asset': z.enum(SETTLEMENT_ASSETS),
      'starts-at': time,
      'ends-at': time.optional(),
      'auto-debit': z.boolean().optional(),
      'contract-reference': z.string().max(200).optional(),
      backdate: z.boolean().optional(),
    }),
    async run(ctx, input) {
      return ctx.resolve(ManageCommitments).create({
        workspaceId: input.workspace.toLowerCase(),
        floor: input.floor,
        settlementAsset: input['settlement-asset'],
        startsAt: input['starts-at'],
        endsAt: input['ends-at'] ?? null,
        autoDebit: input['auto-debit'] ?? false,
        contractReference: input['contract-reference'] ?? '',
        backdate: input.backdate ?? false,
      }) as Promise<unknown> as Promise<Record<string, unknown>>;
    },
    describe: (r) => `commitment ${String(r.id)}: ${String(r.status)}, ${String(r.monthly_floor_usdt)} USD a month`,
  }),
  ...(['suspend', 'resume', 'end'] as const).map((action) =>
    defineCommand({
      path: ['commitment', action],
      summary: {
        suspend: 'Pause an ACTIVE commitment (--id ID): the days it is SUSPENDED are not covered',
        resume: 'Resume a SUSPENDED commitment (--id ID)',
        end: 'End a commitment now (--id ID): ENDED; its last month is still settled when it closes',
      }[action],
      flags: { id: { type: 'string' } },
      input: z.object({ id: z.uuid() }),
      async run(ctx, input) {
        return ctx.resolve(ManageCommitments).change(input.id.toLowerCase(), action) as Promise<unknown> as Promise<Record<string, unknown>>;
      },
      describe: (r) => `commitment ${String(r.id)}: ${String(r.status)}`,
    }),
  ),
  defineCommand({
    path: ['commitment', 'settle'],
    slow: true,
    summary: 'Settle a closed calendar month (UTC) now, for every commitment that covered it: commitment settle --month YYYY-MM (again: changes nothing)',
    flags: { month: { type: 'string' } },
    input: z.object({ month: z.string().describe('a closed calendar month, YYYY-MM (UTC)') }),
    async run(ctx, input) {
      return ctx.resolve(SettleCommitments).settleMonth(parseMonth(input.month, 'month')) as Promise<unknown> as Promise<Record<string, unknown>>;
    },
    describe: (r) => `${String(r.month)}: ${(r.settled as unknown[]).length} settled, ${String(r.already_settled)} already settled, ${(r.failed as unknown[]).length} failed`,
  }),
  defineCommand({
    path: ['commitment', 'mark-paid'],
    summary: 'Record that the workspace paid an OPEN adjustment outside the platform (manual recovery): commitment mark-paid --adjustment ID',
    flags: { adjustment: { type: 'string' } },
    input: z.object({ adjustment: z.uuid() }),
    async run(ctx, input) {
      return ctx.resolve(ManageCommitments).markPaid(input.adjustment.toLowerCase()) as Promise<unknown> as Promise<Record<string, unknown>>;
    },
    describe: (r) => `adjustment ${String(r.id)}: ${String(r.status)}`,
  }),
  defineCommand({
    path: ['commitment', 'show'],
    summary: "What GET /v2/commitment shows the workspace: commitment show --workspace ID",
    flags: { workspace: { type: 'string' } },
    input: z.object({ workspace: z.uuid() }),
    async run(ctx, input) {
      return ctx.resolve(ReadCommitment).overview(input.workspace.toLowerCase()) as Promise<unknown> as Promise<Record<string, unknown>>;
    },
  }),
  defineCommand({
    path: ['fx', 'set'],
    summary: 'Set the EURC/USD rate (USD per EURC) EURC fees and debits are converted at: fx set EURC_USD 1.08',
    flags: {},
    positionals: ['pair', 'rate'],
    input: z.object({ pair: z.string(), rate: z.string() }),
    async run(ctx, input) {
      return ctx.resolve(ManageCommitments).setFxRate(input.pair, input.rate);
    },
  }),
  defineCommand({
    path: ['fx', 'show'],
    summary: 'Show the EURC/USD rate',
    flags: {},
    input: z.object({}),
    async run(ctx) {
      return ctx.resolve(ManageCommitments).showFxRate();
    },
  }),
];
