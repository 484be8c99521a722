// Signing in to the dashboard (issue 32, ADR 0033): email, password and a
// second-factor code; a fresh session each time (its token new, so a token
// planted before sign-in is worthless), ended at sign-out, after 30 idle
// minutes and after 12 hours. Failures are counted per (email, address) and
// per address: the address is refused for a while, never the member as such
// (domain/members/lockout.ts). An email can belong to several workspaces: the
// password picks the member, and when it matches more than one, the member
// chooses the workspace.
import { createHash } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import { FAILURE_WINDOW_MINUTES, lockedUntil } from '../../domain/members/lockout.js';
import { normalEmail, PASSWORD_MAX, type Member } from '../../domain/members/member.js';
import type { PasswordHasher } from '../../domain/members/ports.js';
import { sessionExpiry, sessionLive, type Session, type SignedInMember } from '../../domain/members/session.js';
import type { Clock, RandomSource, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { SecondFactor } from './second-factor.js';

/** How many workspaces one email may be tried against in one sign-in. */
const CANDIDATES = 20;

export interface SignInRequest {
  email: string;
  password: string;
  code: string;
  /** The workspace chosen, when the email's password matched several. */
  workspaceId?: string;
  source: string;
}

export type SignInResult =
  | { kind: 'signed-in'; token: string; session: Session; member: Member }
  | { kind: 'choose-workspace'; workspaces: { id: string; name: string }[] };

export const sessionTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

const WRONG = 'The email, password or authenticator code is wrong';

@injectable()
export class SignIn {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(SecondFactor) private readonly factor: SecondFactor,
  ) {}

  async execute(req: SignInRequest): Promise<SignInResult> {
    const email = normalEmail(req.email).slice(0, 320);
    const now = this.clock.now();
    const since = new Date(now.getTime() - FAILURE_WINDOW_MINUTES * 60_000);
    const until = lockedUntil(await this.uow.read((tx) => tx.sessions.recentFailures(email, req.source, since)));
    if (until) {
      const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
      throw new DomainError('RATE_LIMITED', `Too many failed sign-ins from this address: try again in ${Math.ceil(seconds / 60)} minutes`, { retry_after_seconds: seconds });
    }
    const password = req.password.slice(0, PASSWORD_MAX);
    const candidates = await this.uow.read((tx) => tx.members.signInCandidates(email, CANDIDATES));
    const matching: Member[] = [];
    for (const m of candidates) if (m.passwordHash && (await this.hasher.verify(password, m.passwordHash))) matching.push(m);
    if (candidates.length === 0) await this.hasher.waste(password);
    const chosen = req.workspaceId ? matching.filter((m) => m.workspaceId === req.workspaceId) : matching;
    if (chosen.length === 0) return this.fail(email, req.source);
    if (chosen.length > 1) {
      const workspaces = await this.uow.read(async (tx) => Promise.all(chosen.map(async (m) => ({ id: m.workspaceId, name: (await tx.workspaces.get(m.workspaceId))?.name ?? m.workspaceId }))));
      return { kind: 'choose-workspace', workspaces };
    }
    const signedIn = await this.uow.run(async (tx) => {
      const member = await tx.members.byId(chosen[0]!.id, true);
      if (!member || !(await this.factor.check(tx, member, req.code))) return null;
      const token = this.random.token(32);
      const session: Session = {
        id: this.random.uuid(),
        memberId: member.id,
        workspaceId: member.workspaceId,
        tokenHash: sessionTokenHash(token),
        csrfToken: this.random.token(32),
        createdAt: now,
        lastSeenAt: now,
        expiresAt: sessionExpiry(now),
        endedAt: null,
        source: req.source,
      };
      await tx.sessions.create(session);
      await tx.sessions.clearFailures(email, req.source);
      await tx.audit.record({
        id: this.random.uuid(),
        workspaceId: member.workspaceId,
        actor: { memberId: member.id, label: member.email, source: req.source },
        action: 'member.sign-in',
        target: null,
        before: null,
        after: null,
        at: now,
      });
      return { kind: 'signed-in' as const, token, session, member };
    });
    return signedIn ?? this.fail(email, req.source);
  }

  /** The signed-in member of a session token, its idle clock reset; null when the token is unknown, ended or expired. */
  async current(token: string): Promise<SignedInMember | null> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
    const now = this.clock.now();
    const found = await this.uow.read((tx) => tx.sessions.byTokenHash(sessionTokenHash(token)));
    if (!found || !sessionLive(found.session, now)) return null;
    // Touch at most every 15 s: a page's requests do not each write.
    if (now.getTime() - found.session.lastSeenAt.getTime() > 15_000) await this.uow.run((tx) => tx.sessions.touch(found.session.id, now));
    return found;
  }

  async signOut(signedIn: SignedInMember, source: string): Promise<void> {
    const now = this.clock.now();
    await this.uow.run(async (tx) => {
      await tx.sessions.end(signedIn.session.id, now);
      await tx.audit.record({
        id: this.random.uuid(),
        workspaceId: signedIn.workspaceId,
        actor: { memberId: signedIn.memberId, label: signedIn.email, source },
        action: 'member.sign-out',
        target: null,
        before: null,
        after: null,
        at: now,
      });
    });
  }

  private async fail(email: string, source: string): Promise<never> {
    await this.uow.run((tx) => tx.sessions.recordFailure(email, source, this.clock.now()));
    throw new DomainError('UNAUTHORIZED', WRONG);
  }
}
