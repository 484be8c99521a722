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
import { FAILURE_WINDOW_MINUTES } from '../../domain/members/lockout.js';
import { tokenHash } from './invite-member.js';

/** Wrong step-up codes within the lockout window after which a session is ended. */
export const SESSION_WRONG_CODES = 5;

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
   * when the change commits. Wrong codes count toward the lockout of the
   * member's email from this address, and a session that gets
   * SESSION_WRONG_CODES wrong in the window is ended: a stolen cookie cannot
   * guess codes from many addresses (only its holder is signed out).
   */
  async guard<T>(actor: Actor & { memberId: string }, code: string, change: () => Promise<T>, sessionId?: string): Promise<T> {
    const now = this.clock.now();
    await countAttempt(this.uow, actor.label, actor.source, now);
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
      else if (sessionId && err instanceof DomainError && err.code === 'UNAUTHORIZED') await this.countAgainstSession(sessionId, actor.source, now);
      throw err;
    }
  }

  private async countAgainstSession(sessionId: string, source: string, now: Date): Promise<void> {
    const key = `session:${sessionId}`;
    await this.uow.run(async (tx) => {
      await tx.sessions.recordFailure(key, source, now);
      if ((await tx.sessions.countFailures(key, new Date(now.getTime() - FAILURE_WINDOW_MINUTES * 60_000))) >= SESSION_WRONG_CODES) {
        await tx.sessions.end(sessionId, now);
      }
    });
  }

  /** The member, locked, after their second factor passed; UNAUTHORIZED otherwise (nothing else changes). */
  async require(tx: TxContext, memberId: string, code: string): Promise<Member> {
    // The workspace's membership lock first, then the member's row: the order every membership change takes (no deadlock).
    const found = await tx.members.byId(memberId);
    if (found) await tx.members.lockMembership(found.workspaceId);
    const member = found && (await tx.members.byId(memberId, true));
    if (!member) throw new DomainError('UNAUTHORIZED', 'Sign in again');
    if (!(await this.check(tx, member, code))) {
      throw new DomainError('UNAUTHORIZED', 'That authenticator code is wrong or was used already: enter the current code from your app (or a recovery code)', [
        { path: 'code', message: 'wrong or used code' },
      ]);
    }
    return member;
  }
}
