// ops owner invite: the operator invites a workspace's first owner to its
// dashboard (issue 32, ADR 0033, docs/operations.md#the-owners-dashboard).
// The one-time link is printed and mailed.
import { z } from 'zod';
import { InviteMember } from '../../application/members/invite-member.js';
import { defineCommand, type OpsCommand } from './command.js';

const invite = defineCommand({
  path: ['owner', 'invite'],
  summary: "Invite a workspace's owner to its dashboard: owner invite --workspace ID --email E (prints a one-time link, valid 72 h, and mails it)",
  flags: { workspace: { type: 'string' }, email: { type: 'string' } },
  input: z.object({ workspace: z.uuid({ message: 'must be a workspace id' }), email: z.string().min(3).max(320) }),
  async run(ctx, input) {
    const r = await ctx.resolve(InviteMember).execute({ workspaceId: input.workspace, email: input.email, role: 'OWNER', invitedBy: null });
    return {
      invitation_id: r.invitation.id,
      workspace_id: r.invitation.workspaceId,
      email: r.invitation.email,
      role: r.invitation.role,
      link: r.link,
      expires_at: r.invitation.expiresAt.toISOString(),
      mailed: r.mailed,
    };
  },
  describe: (r) =>
    `${r.email as string} is invited as ${r.role as string} of workspace ${r.workspace_id as string}; the link works once, until ${r.expires_at as string}${r.mailed ? ' (mailed)' : ' (NOT mailed: give it by hand)'}:\n${r.link as string}`,
});

export const MEMBER_COMMANDS: OpsCommand[] = [invite];
