// The owner's people in the dashboard (issue 32, ADR 0033): the members and
// open invitations of a workspace; owners invite (through InviteMember, as the
// operator's ops owner invite does) and remove members. The last owner cannot
// be removed, nor can a member remove themselves. Each change is audited.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import type { Actor } from '../../domain/members/audit.js';
import type { Invitation } from '../../domain/members/invitation.js';
import type { Member, MemberRole } from '../../domain/members/member.js';
import type { Clock, RandomSource, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { InviteMember, type InviteResult } from './invite-member.js';

export interface Members {
  members: Member[];
  invitations: Invitation[];
}

@injectable()
export class ManageMembers {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(InviteMember) private readonly inviter: InviteMember,
  ) {}

  list(workspaceId: string): Promise<Members> {
    return this.uow.read(async (tx) => ({
      members: (await tx.members.list(workspaceId)).filter((m) => m.passwordHash !== null),
      invitations: await tx.members.openInvitations(workspaceId, this.clock.now()),
    }));
  }

  async invite(workspaceId: string, actor: Actor, email: string, role: MemberRole): Promise<InviteResult> {
    const result = await this.inviter.execute({ workspaceId, email, role, invitedBy: actor.memberId });
    await this.uow.run((tx) =>
      tx.audit.record({
        id: this.random.uuid(),
        workspaceId,
        actor,
        action: 'member.invite',
        target: result.invitation.email,
        before: null,
        after: { email: result.invitation.email, role, expires_at: result.invitation.expiresAt.toISOString() },
        at: this.clock.now(),
      }),
    );
    return result;
  }

  /** Revokes an open invitation of the workspace (NOT_FOUND when there is none): its link no longer works. */
  async revokeInvitation(workspaceId: string, actor: Actor, invitationId: string): Promise<void> {
    await this.uow.run(async (tx) => {
      const now = this.clock.now();
      if (!(await tx.members.revokeInvitation(workspaceId, invitationId, now))) throw new DomainError('NOT_FOUND', 'No such open invitation');
      await tx.audit.record({ id: this.random.uuid(), workspaceId, actor, action: 'member.revoke-invitation', target: invitationId, before: null, after: null, at: now });
    });
  }

  async remove(workspaceId: string, actor: Actor, memberId: string): Promise<Member> {
    return this.uow.run(async (tx) => {
      // Two owners removing each other at once: one after the other, so the second sees the first's removal.
      await tx.members.lockMembership(workspaceId);
      const member = await tx.members.byId(memberId, true);
      if (!member || member.workspaceId !== workspaceId) throw new DomainError('NOT_FOUND', 'No such member');
      if (member.id === actor.memberId) throw new DomainError('UNPROCESSABLE', 'You cannot remove yourself: ask another owner');
      if (member.role === 'OWNER') {
        const owners = (await tx.members.list(workspaceId)).filter((m) => m.role === 'OWNER' && m.passwordHash !== null);
        if (owners.length <= 1) throw new DomainError('UNPROCESSABLE', 'A workspace keeps at least one owner');
      }
      const now = this.clock.now();
      await tx.sessions.endAllOf(member.id, now);
      // The invitations they sent go with them: a link they handed out no longer makes anyone a member.
      await tx.members.revokeInvitationsBy(member.id, now);
      await tx.members.remove(member.id);
      await tx.audit.record({
        id: this.random.uuid(),
        workspaceId,
        actor,
        action: 'member.remove',
        target: member.email,
        before: { email: member.email, role: member.role },
        after: null,
        at: now,
      });
      return member;
    });
  }
}
