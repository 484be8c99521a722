// Accepting an invitation to the dashboard (issue 32, ADR 0033): the link's
// holder chooses a password and enrols an authenticator app (a TOTP secret
// shown as a QR code, confirmed by one code from the app), and receives ten
// single-use recovery codes, shown once. Until the form is sent, the secret
// travels sealed (encrypted and authenticated with the service's secret key,
// bound to the invitation), so nothing half-enrolled is stored.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import { unusable, type Invitation } from '../../domain/members/invitation.js';
import { PASSWORD_MAX, PASSWORD_MIN, RECOVERY_CODES, type Member } from '../../domain/members/member.js';
import type { Authenticator, PasswordHasher } from '../../domain/members/ports.js';
import type { Clock, RandomSource, SecretCipher, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { tokenHash } from './invite-member.js';

export interface Enrolment {
  invitation: Invitation;
  /** The TOTP secret (base32) to show beside the QR code, for typing into an app by hand. */
  secret: string;
  /** The otpauth:// URI the QR code carries. */
  uri: string;
  /** The secret sealed for the form: only this service can open it, only for this invitation. */
  sealed: string;
}

export interface AcceptRequest {
  token: string;
  sealed: string;
  password: string;
  code: string;
  source: string;
}

export interface Accepted {
  member: Member;
  /** Shown once; kept only as hashes. */
  recoveryCodes: string[];
}

/** A recovery code as shown: 16 hex digits in groups of four (no letters to confuse: O and 0, l and I). */
const recoveryCode = (token: string): string =>
  Buffer.from(token, 'base64url').toString('hex').slice(0, 16).match(/.{4}/g)!.join('-');

/** A recovery code as typed, compared: lower case, without spaces or dashes. */
export const normalRecoveryCode = (typed: string): string => typed.toLowerCase().replace(/[\s-]+/g, '');

@injectable()
export class AcceptInvitation {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
    @inject(TOKENS.PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(TOKENS.Authenticator) private readonly authenticator: Authenticator,
  ) {}

  /** The enrolment form's content; NOT_FOUND when the link is unknown, used, replaced or expired. */
  async open(token: string): Promise<Enrolment> {
    const invitation = await this.uow.run((tx) => this.usable(tx.members.invitationByTokenHash(tokenHash(token))));
    const secret = this.authenticator.newSecret();
    return {
      invitation,
      secret,
      uri: this.authenticator.enrolmentUri(secret, invitation.email),
      sealed: this.cipher.encrypt(`${invitation.id}:${secret}`),
    };
  }

  /** The same enrolment again (the form sent back with a mistake): the secret the member may have scanned already, from the sealed field. */
  async reopen(token: string, sealed: string): Promise<Enrolment> {
    const invitation = await this.uow.run((tx) => this.usable(tx.members.invitationByTokenHash(tokenHash(token))));
    const secret = this.opened(sealed, invitation.id);
    return { invitation, secret, uri: this.authenticator.enrolmentUri(secret, invitation.email), sealed };
  }

  async accept(req: AcceptRequest): Promise<Accepted> {
    if (req.password.length < PASSWORD_MIN || req.password.length > PASSWORD_MAX) {
      throw new DomainError('VALIDATION_ERROR', `Choose a password of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`, [
        { path: 'password', message: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters` },
      ]);
    }
    const passwordHash = await this.hasher.hash(req.password);
    const recoveryCodes = Array.from({ length: RECOVERY_CODES }, () => recoveryCode(this.random.token(8)));
    return this.uow.run(async (tx) => {
      const invitation = await this.usable(tx.members.invitationByTokenHash(tokenHash(req.token)));
      const secret = this.opened(req.sealed, invitation.id);
      const now = this.clock.now();
      const step = await this.authenticator.verify(secret, req.code.replace(/\s+/g, ''), now, null);
      if (step === null) {
        throw new DomainError('VALIDATION_ERROR', 'That code does not match: scan the QR code again and enter the current code from your app', [
          { path: 'code', message: 'does not match the new authenticator' },
        ]);
      }
      const existing = await tx.members.byEmail(invitation.workspaceId, invitation.email);
      if (existing?.passwordHash) throw new DomainError('CONFLICT', `${invitation.email} is a member of this workspace already`);
      const member: Member = {
        id: existing?.id ?? this.random.uuid(),
        workspaceId: invitation.workspaceId,
        email: invitation.email,
        role: invitation.role,
        passwordHash,
        totpSecret: this.cipher.encrypt(secret),
        totpLastStep: step,
        recoveryCodes: recoveryCodes.map((c) => tokenHash(normalRecoveryCode(c))),
        createdAt: existing?.createdAt ?? now,
      };
      await tx.members.save(member);
      await tx.members.acceptInvitation(invitation.id, now);
      await tx.audit.record({
        id: this.random.uuid(),
        workspaceId: member.workspaceId,
        actor: { memberId: member.id, label: member.email, source: req.source },
        action: 'member.join',
        target: member.email,
        before: null,
        after: { email: member.email, role: member.role, invited_by: invitation.invitedBy ?? 'operator' },
        at: now,
      });
      return { member, recoveryCodes };
    });
  }

  private async usable(found: Promise<Invitation | null>): Promise<Invitation> {
    const invitation = await found;
    const why = invitation ? unusable(invitation, this.clock.now()) : 'unknown';
    if (!invitation || why) {
      throw new DomainError('NOT_FOUND', `This invitation link cannot be used (${why ?? 'unknown'}): ask an owner of the workspace (or the operator) for a new one`);
    }
    return invitation;
  }

  private opened(sealed: string, invitationId: string): string {
    let plain: string;
    try {
      plain = this.cipher.decrypt(sealed);
    } catch {
      throw new DomainError('VALIDATION_ERROR', 'The enrolment form was altered: open the invitation link again');
    }
    const [id, secret] = plain.split(':');
    if (id !== invitationId || !secret) throw new DomainError('VALIDATION_ERROR', 'The enrolment form belongs to another invitation: open the invitation link again');
    return secret;
  }
}
