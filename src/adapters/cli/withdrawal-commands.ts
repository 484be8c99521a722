// ops withdrawal approve|reject|hold|release --id ID, ops workspace
// freeze|unfreeze --workspace ID (docs/operations.md#withdrawals).
import { z } from 'zod';
import { OperateWithdrawals } from '../../application/withdrawals/operate-withdrawals.js';
import { withdrawalDetail } from '../../application/withdrawals/withdrawal-view.js';
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
