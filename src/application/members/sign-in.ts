// Signing in to the dashboard (issue 32, ADR 0033): email, password and a
// second-factor code; a fresh session each time (its token new, so a token
// planted before sign-in is worthless), ended at sign-out, after 30 idle
// minutes and after 12 hours. Failures are counted per (email, address) and
// per address: each attempt is counted as failed before it is checked (and
// forgotten when it succeeds), so parallel requests cannot race the count;
// the address is refused for a while, never the member as such
// (domain/members/lockout.ts). An email can belong to
// several workspaces, each membership with its own password and
// authenticator: the member is the one whose password and code both match.
import { createHash } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import { normalEmail, PASSWORD_MAX, type Member } from '../../domain/members/member.js';
import type { PasswordHasher } from '../../domain/members/ports.js';
import { sessionExpiry, sessionLive, type Session, type SignedInMember } from '../../domain/members/session.js';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import { countAttempt } from './attempts.js';
import { TOKENS } from '../tokens.js';
import { SecondFactor } from './second-factor.js';

/** How many workspaces one email may be tried against in one sign-in. */
const CANDIDATES = 20;

export interface SignInRequest {
  email: string;
  password: string;
  code: string;
  source: string;
}

export interface SignedIn {
  token: string;
  session: Session;
  member: Member;
}

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

  async execute(req: SignInRequest): Promise<SignedIn> {
    const email = normalEmail(req.email).slice(0, 320);
    const password = req.password.slice(0, PASSWORD_MAX);
    const now = this.clock.now();
    await countAttempt(this.uow, email, req.source, now);
    const candidates = await this.uow.read((tx) => tx.members.signInCandidates(email, CANDIDATES));
    if (candidates.length === 0) await this.hasher.waste(password);
    for (const candidate of candidates) {
      if (!candidate.passwordHash || !(await this.hasher.verify(password, candidate.passwordHash))) continue;
      const signedIn = await this.uow.run(async (tx) => {
        const member = await tx.members.byId(candidate.id, true);
        return member && (await this.factor.check(tx, member, req.code)) ? this.open(tx, member, req.source, now) : null;
      });
      if (signedIn) return signedIn;
    }
    throw new DomainError('UNAUTHORIZED', WRONG);
  }

  private async open(tx: TxContext, member: Member, source: string, now: Date): Promise<SignedIn> {
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
      source,
    };
    await tx.sessions.create(session);
    await tx.sessions.clearFailures(member.email, source);
    await tx.audit.record({
      id: this.random.uuid(),
      workspaceId: member.workspaceId,
      actor: { memberId: member.id, label: member.email, source },
      action: 'member.sign-in',
      target: null,
      before: null,
      after: null,
      at: now,
    });
    return { token, session, member };
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
}
