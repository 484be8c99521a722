// ops withdrawal approve|reject|hold|release|paid --id ID, ops workspace
// freeze|unfreeze --workspace ID (docs/operations.md#withdrawals).
import { z } from 'zod';
import { TOKENS } from '../../application/tokens.js';
import { OperateWithdrawals } from '../../application/withdrawals/operate-withdrawals.js';
import { TakeBackRefund } from '../../application/withdrawals/take-back-refund.js';
import { withdrawalDetail } from '../../application/withdrawals/withdrawal-view.js';
import { Amount } from '../../domain/money/amount.js';
import type { BalanceReader, ChainSender } from '../../domain/transfers/ports.js';
import { defineCommand, type OpsCommand } from './command.js';

export const WITHDRAWAL_COMMANDS: OpsCommand[] = [
  ...(['approve', 'reject', 'hold', 'release'] as const).map((action) =>
    defineCommand({
      path: ['withdrawal', action],
      summary: {
        approve: 'Approve a withdrawal waiting for approval (--id ID): it becomes PENDING and is sent',
        reject: 'Reject a withdrawal waiting for approval (--id ID): CANCELLED, the amount back to available',
        hold: 'Hold a PENDING withdrawal for compliance review (--id ID): UNDER_REVIEW, WITHDRAWAL_HELD',
        release: 'Release a held withdrawal (--id ID): PENDING again',
      }[action],
      flags: { id: { type: 'string' } },
      input: z.object({ id: z.uuid() }),
      async run(ctx, input) {
        const w = await ctx.resolve(OperateWithdrawals).execute(action, input.id.toLowerCase());
        return { ...withdrawalDetail(w), workspace_id: w.workspaceId };
      },
      describe: (r) => `withdrawal ${String(r.id)}: ${String(r.status)}`,
    }),
  ),
  defineCommand({
    path: ['withdrawal', 'paid'],
    readsNodes: true,
    slow: true,
    summary:
      'A FAILED and refunded withdrawal whose payout is on chain after all, as ops ledger reconcile names it (--id ID): proved on every node URL, its refund is taken back (available, then receivable); it stays FAILED',
    flags: { id: { type: 'string' } },
    input: z.object({ id: z.uuid() }),
    async run(ctx, input) {
      const senders = ctx
        .resolve<BalanceReader[]>(TOKENS.BalanceReaders)
        .filter((r): r is ChainSender => typeof (r as Partial<ChainSender>).sentReceiptOnEveryNode === 'function');
      const r = await ctx.resolve(TakeBackRefund).execute(senders, input.id.toLowerCase());
      const units = (v: bigint) => Amount.ofUnits(r.withdrawal.asset, v).toString();
      return {
        ...withdrawalDetail(r.withdrawal),
        workspace_id: r.withdrawal.workspaceId,
        paid_in: { txid: r.txid, block: r.block.toString() },
        refund_taken_back: { from_available: units(r.fromAvailable), to_receivable: units(r.toReceivable) },
      };
    },
    describe: (r) => {
      const back = r.refund_taken_back as { from_available: string; to_receivable: string };
      const paid = r.paid_in as { txid: string; block: string };
      return `withdrawal ${String(r.id)}: paid in ${paid.txid} (block ${paid.block}); refund taken back: ${back.from_available} from available, ${back.to_receivable} to receivable. It stays FAILED: tell workspace ${String(r.workspace_id)}.`;
    },
  }),
  ...(['freeze', 'unfreeze'] as const).map((action) =>
    defineCommand({
      path: ['workspace', action],
      summary: `${action === 'freeze' ? 'Freeze' : 'Unfreeze'} a workspace's withdrawals (--workspace ID)`,
      flags: { workspace: { type: 'string' } },
      input: z.object({ workspace: z.uuid() }),
      async run(ctx, input) {
        await ctx.resolve(OperateWithdrawals).freeze(input.workspace, action === 'freeze');
        return { workspace_id: input.workspace, withdrawals_frozen: action === 'freeze' };
      },
    }),
  ),
];
