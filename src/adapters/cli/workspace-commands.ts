// ops workspace create | deactivate | activate | set-contact, key issue
// (docs/operations.md#workspaces-and-keys, #operator-notices).
import { z } from 'zod';
import { CreateWorkspace } from '../../application/workspaces/create-workspace.js';
import { IssueOperatorKey } from '../../application/workspaces/issue-operator-key.js';
import { SetWorkspaceContact } from '../../application/workspaces/set-workspace-contact.js';
import { SetWorkspaceStatus } from '../../application/workspaces/set-workspace-status.js';
import { defineCommand, type OpsCommand } from './command.js';

const setStatus = (action: 'activate' | 'deactivate') =>
  defineCommand({
    path: ['workspace', action],
    summary: `${action === 'activate' ? 'Re-activate' : 'Deactivate'} a workspace (--workspace ID)`,
    flags: { workspace: { type: 'string' } },
    input: z.object({ workspace: z.uuid() }),
    async run(ctx, input) {
      const status = action === 'activate' ? 'ACTIVE' : 'INACTIVE';
      await ctx.resolve(SetWorkspaceStatus).execute({ workspaceId: input.workspace, status });
      return { workspace_id: input.workspace, status };
    },
  });

export const WORKSPACE_COMMANDS: OpsCommand[] = [
  defineCommand({
    path: ['workspace', 'create'],
    summary: 'Create a workspace with a live and a test key holding every scope (--name NAME [--contact-email E])',
    flags: { name: { type: 'string' }, 'contact-email': { type: 'string' } },
    input: z.object({ name: z.string().trim().min(1).max(200), 'contact-email': z.email().optional() }),
    async run(ctx, input) {
      const w = await ctx.resolve(CreateWorkspace).execute({ name: input.name, contactEmail: input['contact-email'] ?? null });
      return {
        workspace_id: w.workspaceId,
        contact_email: w.contactEmail,
        live_key: { key_id: w.liveKey.keyId, secret: w.liveKey.secret },
        test_key: { key_id: w.testKey.keyId, secret: w.testKey.secret },
      };
    },
    describe: (r) => `workspace ${String(r.workspace_id)} created; its key secrets are shown once:\n${JSON.stringify(r, null, 2)}`,
  }),
  setStatus('deactivate'),
  setStatus('activate'),
  defineCommand({
    path: ['workspace', 'set-contact'],
    summary: 'Set the e-mail address that gets the operator notices of a workspace (--workspace ID --email E)',
    flags: { workspace: { type: 'string' }, email: { type: 'string' } },
    input: z.object({ workspace: z.uuid(), email: z.email() }),
    async run(ctx, input) {
      const email = await ctx.resolve(SetWorkspaceContact).execute({ workspaceId: input.workspace, email: input.email });
      return { workspace_id: input.workspace, contact_email: email };
    },
  }),
  defineCommand({
    path: ['key', 'issue'],
    summary: 'Issue a key holding every scope for an existing workspace (--workspace ID --side live|test)',
    flags: { workspace: { type: 'string' }, side: { type: 'string' } },
    input: z.object({ workspace: z.uuid(), side: z.enum(['live', 'test']) }),
    async run(ctx, input) {
      const key = await ctx.resolve(IssueOperatorKey).execute({ workspaceId: input.workspace, side: input.side });
      return { workspace_id: input.workspace, key: { key_id: key.keyId, secret: key.secret } };
    },
    describe: (r) => `key issued for workspace ${String(r.workspace_id)}; its secret is shown once:\n${JSON.stringify(r, null, 2)}`,
  }),
];
