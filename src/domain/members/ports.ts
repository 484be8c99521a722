// What the dashboard's members need from storage (issue 32, ADR 0033).
import type { Invitation } from './invitation.js';
import type { Member } from './member.js';

export interface MemberRepo {
  /** The workspace's member with this email (lower case), if any. */
  byEmail(workspaceId: string, email: string): Promise<Member | null>;
  /** Records an invitation; the open ones of the same email in the workspace are revoked (replaced) at its time. */
  invite(invitation: Invitation): Promise<void>;
  /** The invitation whose token hashes to this, locked until commit. */
  invitationByTokenHash(tokenHash: string): Promise<Invitation | null>;
}
