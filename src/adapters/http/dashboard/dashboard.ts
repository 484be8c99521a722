// The dashboard's request pipeline (ADR 0033), shared by every page module:
// the session cookie read into the signed-in member, a redirect to sign-in
// without one, the role's check, and for every change the CSRF checks (the
// session's synchronizer token in the form, and no foreign Origin) before
// the form is validated with zod and the handler runs. Errors become pages
// with the catalogue's status.
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { InjectionToken } from 'tsyringe';
import { z, ZodError } from 'zod';
import { SecondFactor } from '../../../application/members/second-factor.js';
import { SignIn } from '../../../application/members/sign-in.js';
import { DomainError } from '../../../domain/errors.js';
import type { Actor } from '../../../domain/members/audit.js';
import { may, type MemberAction } from '../../../domain/members/member.js';
import { ABSOLUTE_HOURS, type SignedInMember } from '../../../domain/members/session.js';
import type { NetworkSide } from '../../../domain/money/networks.js';
import type { Logger } from '../../logging/logger.js';
import { ERROR_STATUS } from '../error-status.js';
import { routeLabel } from '../request-context.js';
import { html, page, type PageOptions } from './html.js';

export interface DashboardDeps {
  resolve: <T>(token: InjectionToken<T>) => T;
  logger: Logger;
  /** Where owners reach the dashboard (DASHBOARD_URL), no trailing slash. */
  dashboardUrl: string;
  /** Secure cookies: outside the sandbox (production, or an https DASHBOARD_URL). */
  secureCookies: boolean;
  /** The side pages show when the request names none: test in the sandbox (where the money is), live otherwise. */
  defaultSide: NetworkSide;
}

/** What a signed-in page's handler is given. */
export interface PageContext {
  req: Request;
  res: Response;
  member: SignedInMember;
  /** The member as the audit log records them, with the request's address. */
  actor: Actor & { memberId: string };
  /**
   * On a change declared with `stepUp`: runs `work` (the use case) after the
   * member's second factor passes again, in one transaction with it; a wrong
   * code changes nothing and counts toward the lockout.
   */
  stepUp<T>(work: () => Promise<T>): Promise<T>;
}

export interface ChangeOptions {
  /** The change asks for the member's second factor again (a `code` field in its form). */
  stepUp?: boolean;
}

const codeField = z.string().trim().min(1, 'enter the current code from your authenticator app (or a recovery code)').max(32);

export class Dashboard {
  readonly router: Router = express.Router({ caseSensitive: true, strict: false });
  readonly cookieName: string;
  readonly defaultSide: NetworkSide;
  private readonly signIn: SignIn;
  private readonly factor: SecondFactor;
  private readonly origin: string;

  constructor(readonly deps: DashboardDeps) {
    this.cookieName = deps.secureCookies ? '__Host-wallet_session' : 'wallet_session';
    this.defaultSide = deps.defaultSide;
    this.signIn = deps.resolve(SignIn);
    this.factor = deps.resolve(SecondFactor);
    this.origin = new URL(deps.dashboardUrl).origin;
    this.router.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 200 }));
    // PostgreSQL stores no NUL character: a form holding one is refused before anything reads it.
    this.router.use((req, _res, next) => {
      const values = Object.values((req.body ?? {}) as Record<string, unknown>).flat();
      next(values.some((v) => typeof v === 'string' && v.includes('\u0000')) ? new DomainError('VALIDATION_ERROR', 'The form holds a character that is not allowed (NUL)') : undefined);
    });
  }

  resolve<T>(token: InjectionToken<T>): T {
    return this.deps.resolve(token);
  }

  /** A signed-in page: a member allowed `needs`, else a redirect to sign-in (no session) or 403. */
  get(path: string, needs: MemberAction, handler: (c: PageContext) => Promise<void>): void {
    this.router.get(path, this.signedIn(needs, false), (req, res, next) => this.run(req, res, next, handler));
  }

  /**
   * A change: signed in, allowed `needs`, CSRF checked, then the form parsed
   * by `form` (400 and nothing changed otherwise). With `stepUp`, the form's
   * `code` is the member's second factor, checked when the handler calls
   * `stepUp` around its use case (a handler that does not is a bug: 500).
   */
  post<S extends z.ZodType>(path: string, needs: MemberAction, form: S, handler: (c: PageContext, input: z.infer<S>) => Promise<void>, opts: ChangeOptions = {}): void {
    this.router.post(path, this.signedIn(needs, true), (req, res, next) =>
      this.run(req, res, next, async (c) => {
        const { _csrf: _token, code, ...fields } = (req.body ?? {}) as Record<string, unknown>;
        const input = form.parse(opts.stepUp ? fields : { ...fields, ...(code === undefined ? {} : { code }) });
        if (!opts.stepUp) return handler(c, input);
        const typed = codeField.parse(code);
        let used = false;
        await handler({ ...c, stepUp: (work) => ((used = true), this.factor.guard(c.actor, typed, work, c.member.session.id)) }, input);
        if (!used) throw new Error(`${path} is declared with a step-up its handler never asked for`);
      }),
    );
  }

  /** Refuses a change that comes from another site: an Origin (or Sec-Fetch-Site) that is not this dashboard's. */
  sameOrigin(req: Request): boolean {
    if (req.get('sec-fetch-site') === 'cross-site') return false;
    const origin = req.get('origin');
    if (origin === undefined) return true;
    return origin === this.origin || origin === `${req.protocol}://${req.get('host') ?? ''}`;
  }

  setSessionCookie(res: Response, token: string): void {
    res.append(
      'Set-Cookie',
      stringifySetCookie({ name: this.cookieName, value: token, httpOnly: true, secure: this.deps.secureCookies, sameSite: 'strict', path: '/', maxAge: ABSOLUTE_HOURS * 3600 }),
    );
  }

  clearSessionCookie(res: Response): void {
    res.append('Set-Cookie', stringifySetCookie({ name: this.cookieName, value: '', httpOnly: true, secure: this.deps.secureCookies, sameSite: 'strict', path: '/', maxAge: 0 }));
  }

  /** The session token the request carries, if any. */
  sessionToken(req: Request): string | undefined {
    const header = req.get('cookie');
    return header ? parseCookie(header)[this.cookieName] : undefined;
  }

  /** The signed-in member of the request, or null. */
  async member(req: Request): Promise<SignedInMember | null> {
    const token = this.sessionToken(req);
    return token ? this.signIn.current(token) : null;
  }

  backLink() {
    return html`<p><a href="/dashboard">Back to the dashboard</a></p>`;
  }

  /** Sends a whole page. */
  render(res: Response, options: PageOptions, status = 200): void {
    res.status(status).type('html').send(page(options));
  }

  private signedIn(needs: MemberAction, change: boolean): RequestHandler {
    return (req, res, next) => {
      void (async () => {
        if (change && !this.sameOrigin(req)) return this.refuse(res, 403, 'This change came from another site and was refused');
        const member = await this.member(req);
        if (!member) {
          if (change) return this.refuse(res, 401, 'Your session has ended: sign in again');
          return res.redirect(303, '/dashboard/sign-in');
        }
        res.locals.member = member;
        if (change && !csrfMatches(req, member)) return this.refuse(res, 403, 'The form has expired or did not come from this dashboard: reload the page and try again', member);
        if (!may(member.role, needs)) return this.refuse(res, 403, `Your role (${member.role}) cannot do this`, member);
        next();
      })().catch(next);
    };
  }

  private refuse(res: Response, status: number, message: string, member?: SignedInMember): void {
    this.render(res, { title: status === 403 ? 'Not allowed' : 'Sign in again', member, error: message, body: html`<p><a href="/dashboard">Back to the dashboard</a></p>` }, status);
  }

  private run(req: Request, res: Response, next: NextFunction, handler: (c: PageContext) => Promise<void>): void {
    const member = res.locals.member as SignedInMember;
    const stepUp = () => Promise.reject(new Error(`${req.method} ${routeLabel(req, res.locals.mountPath)} asked for a step-up it did not declare`));
    handler({ req, res, member, actor: { memberId: member.memberId, label: member.email, source: req.ip ?? 'unknown' }, stepUp }).catch(next);
  }

  /** A Referer that is a page of this dashboard's own origin (compared as a parsed origin, not as a prefix), else undefined. */
  private ownPage(referer: string | undefined): string | undefined {
    if (!referer) return undefined;
    try {
      return new URL(referer).origin === this.origin ? referer : undefined;
    } catch {
      return undefined;
    }
  }

  /** The dashboard's error page: a coded refusal with its status, anything else a 500 logged with its request id. */
  errorHandler(): express.ErrorRequestHandler {
    return (err: unknown, req, res, _next) => {
      if (res.headersSent) return;
      const member = res.locals.member as SignedInMember | undefined;
      const back = html`<p><a href="${this.ownPage(req.get('referer')) ?? '/dashboard'}">Go back</a></p>`;
      if (err instanceof DomainError) {
        const retry = (err.details as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
        if (typeof retry === 'number') res.setHeader('Retry-After', String(retry));
        return this.render(res, { title: 'Not done', member, error: err.message, body: back }, ERROR_STATUS[err.code]);
      }
      if (err instanceof URIError) {
        // express could not decode a path parameter: it names nothing (and is never logged: it may hold an invitation's token).
        return this.render(res, { title: 'Not found', member, error: 'No such page', body: back }, 404);
      }
      if (err instanceof ZodError) {
        const fields = err.issues.map((i) => `${i.path.map(String).join('.') || 'form'}: ${i.message}`).join('; ');
        return this.render(res, { title: 'Not done', member, error: `Check the form: ${fields}`, body: back }, 400);
      }
      if ((err as { type?: unknown })?.type === 'entity.too.large' || (err as { type?: unknown })?.type === 'parameters.too.many') {
        return this.render(res, { title: 'Not done', member, error: 'The form is too large', body: back }, 413);
      }
      // The body parser's other refusals (a charset or an encoding it does not read, a body that does not inflate): the client's.
      const status = (err as { status?: unknown; expose?: unknown })?.status;
      if (typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: unknown }).expose === true) {
        return this.render(res, { title: 'Not done', member, error: 'The form could not be read: send it from the dashboard page', body: back }, status);
      }
      const requestId = res.getHeader('X-Request-Id');
      // The route, never the path: an invitation's path holds its one-time token.
      this.deps.logger.error({ err, requestId, method: req.method, route: routeLabel(req, res.locals.mountPath) }, 'dashboard request failed');
      this.render(res, { title: 'Something went wrong', member, error: `Internal error (request ${String(requestId)})`, body: back }, 500);
    };
  }
}

function csrfMatches(req: Request, member: SignedInMember): boolean {
  const sent = (req.body as Record<string, unknown> | undefined)?._csrf;
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(member.session.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Security headers of every dashboard answer: nothing runs but our own markup, nothing is cached or framed, no URL (an invitation's token) leaves the site. */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with a form, and the CSRF check needs the origin.
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
};

/** A form's checkbox or missing field as a string, trimmed (forms send only strings). */
export const field = z.string().trim();
