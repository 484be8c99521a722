// Checking a member's second factor (ADR 0033): a TOTP code from their app,
// accepted once (the step it matched is remembered), or one of their recovery
// codes, which is then used up. Called at sign-in and again before every
// change of withdrawal security ("step-up"). Runs inside the caller's unit
// of work, with the member's row locked so two requests cannot both spend one code.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import type { Actor } from '../../domain/members/audit.js';
import type { Member } from '../../domain/members/member.js';
import type { Authenticator } from '../../domain/members/ports.js';
import type { Clock, SecretCipher, TxContext, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { normalRecoveryCode } from './accept-invitation.js';
import { countAttempt } from './attempts.js';
import { tokenHash } from './invite-member.js';

@injectable()
export class SecondFactor {
  constructor(
    @inject(TOKENS.Authenticator) private readonly authenticator: Authenticator,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
  ) {}

  /** Whether `code` is the member's (spending it); the member's row must be locked by the caller. */
  async check(tx: TxContext, member: Member, code: string): Promise<boolean> {
    const typed = code.replace(/\s+/g, '');
    if (!member.totpSecret || typed === '') return false;
    const step = await this.authenticator.verify(this.cipher.decrypt(member.totpSecret), typed, this.clock.now(), member.totpLastStep);
    if (step !== null) {
      await tx.members.save({ ...member, totpLastStep: step });
      return true;
    }
    const hash = tokenHash(normalRecoveryCode(typed));
    if (!member.recoveryCodes.includes(hash)) return false;
    await tx.members.save({ ...member, recoveryCodes: member.recoveryCodes.filter((h) => h !== hash) });
    return true;
  }

  /**
   * Runs `change` in one transaction with the member's second factor checked
   * first (step-up): a wrong code changes nothing, and a code is spent only
   * when the change commits.
   */
  async guard<T>(actor: Actor & { memberId: string }, code: string, change: () => Promise<T>): Promise<T> {
    // Wrong codes count toward the lockout of the member's email from this address: a stolen session cannot guess codes.
    await countAttempt(this.uow, actor.label, actor.source, this.clock.now());
    let passed = false;
    try {
      return await this.uow.run(async (tx) => {
        await this.require(tx, actor.memberId, code);
        passed = true;
        await tx.sessions.clearFailures(actor.label, actor.source);
        return change();
      });
    } catch (err) {
      // The code was right but the change was refused: not a failed attempt.
      if (passed) await this.uow.run((tx) => tx.sessions.clearFailures(actor.label, actor.source));
      throw err;
    }
  }

  /** The member, locked, after their second factor passed; UNAUTHORIZED otherwise (nothing else changes). */
  async require(tx: TxContext, memberId: string, code: string): Promise<Member> {
    const member = await tx.members.byId(memberId, true);
    if (!member) throw new DomainError('UNAUTHORIZED', 'Sign in again');
    if (!(await this.check(tx, member, code))) {
      throw new DomainError('UNAUTHORIZED', 'That authenticator code is wrong or was used already: enter the current code from your app (or a recovery code)', [
        { path: 'code', message: 'wrong or used code' },
      ]);
    }
    return member;
  }
}
