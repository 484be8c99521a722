// Inviting a member to a workspace's dashboard (issue 32, ADR 0033): the
// operator invites the first owner (ops owner invite), owners the others. A
// one-time link of 32 random bytes, kept only as its SHA-256, valid 72 hours;
// a newer invitation of the same email replaces an open one. The link is
// returned to the caller and mailed once the invitation is committed.
import { createHash } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import { newInvitation, type Invitation } from '../../domain/members/invitation.js';
import { isEmail, normalEmail, type MemberRole } from '../../domain/members/member.js';
import type { Clock, Mailer, RandomSource, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export interface InviteRequest {
  workspaceId: string;
  email: string;
  role: MemberRole;
  /** The inviting member's id; null for the operator. */
  invitedBy: string | null;
}

export interface InviteResult {
  invitation: Invitation;
  /** The one-time link: shown once, never stored. */
  link: string;
  /** Whether the mail went out (the link is still good when it did not: give it by hand). */
  mailed: boolean;
}

/** The SHA-256 of an invitation token, hex: what the service keeps of it. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

@injectable()
export class InviteMember {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.Mailer) private readonly mailer: Mailer,
    @inject(TOKENS.DashboardUrl) private readonly dashboardUrl: string,
  ) {}

  async execute(req: InviteRequest): Promise<InviteResult> {
    const email = normalEmail(req.email);
    if (!isEmail(email)) throw new DomainError('VALIDATION_ERROR', 'not an email address', [{ path: 'email', message: 'must be an email address' }]);
    const token = this.random.token(32);
    const invitation = await this.uow.run(async (tx) => {
      const workspace = await tx.workspaces.get(req.workspaceId);
      if (!workspace) throw new DomainError('WORKSPACE_NOT_FOUND', `no workspace ${req.workspaceId}`);
      const member = await tx.members.byEmail(workspace.id, email);
      if (member?.passwordHash) throw new DomainError('CONFLICT', `${email} is a member of this workspace already`);
      const created = newInvitation({ id: this.random.uuid(), workspaceId: workspace.id, email, role: req.role, tokenHash: tokenHash(token), invitedBy: req.invitedBy, createdAt: this.clock.now() });
      await tx.members.invite(created);
      return created;
    });
    const link = `${this.dashboardUrl}/invitations/${token}`;
    const mailed = await this.mailer
      .send({
        to: email,
        subject: 'Your invitation to the wallet service dashboard',
        text: [
          `You are invited to the dashboard of workspace ${invitation.workspaceId} as ${invitation.role}.`,
          '',
          `Open this link to choose your password and set up your second factor (an authenticator app):`,
          link,
          '',
          `The link works once, until ${invitation.expiresAt.toISOString()}. If you did not expect it, ignore this mail.`,
        ].join('\n'),
        confidential: true,
      })
      .catch(() => false);
    return { invitation, link, mailed };
  }
}
