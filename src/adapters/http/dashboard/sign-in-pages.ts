// The dashboard's doors (ADR 0033): accepting an invitation (password, an
// authenticator enrolled from a QR code, recovery codes shown once), signing
// in (email, password, code; a new session and cookie each time) and signing
// out (the session ended: its cookie opens nothing any more).
import { z } from 'zod';
import type { Response } from 'express';
import { AcceptInvitation, type Enrolment } from '../../../application/members/accept-invitation.js';
import { DomainError } from '../../../domain/errors.js';
import { SignIn } from '../../../application/members/sign-in.js';
import { PASSWORD_MIN } from '../../../domain/members/member.js';
import type { Dashboard } from './dashboard.js';
import { html, trusted } from './html.js';

const acceptForm = z.object({
  sealed: z.string().min(1).max(2000),
  password: z.string().max(1000),
  password_again: z.string().max(1000),
  code: z.string().trim().min(1).max(32),
});

const signInForm = z.object({
  email: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1000),
  code: z.string().trim().min(1).max(32),
});

export function signInPages(d: Dashboard): void {
  const accept = d.resolve(AcceptInvitation);
  const signIn = d.resolve(SignIn);

  const enrolmentPage = async (res: Response, token: string, enrolment: Enrolment, error?: string) => {
    // Loaded with the first enrolment page: an api that never shows one never loads the QR encoder.
    const { default: QRCode } = await import('qrcode');
    const qr = await QRCode.toString(enrolment.uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
    const { invitation } = enrolment;
    d.render(
      res,
      {
        title: 'Join the dashboard',
        error,
        body: html`<p>You are invited as <strong>${invitation.role}</strong> (${invitation.email}). Choose a password and set up your authenticator app.</p>
<form method="post" class="card" action="/dashboard/invitations/${token}">
<input type="hidden" name="sealed" value="${enrolment.sealed}">
<label for="password">Password (at least ${PASSWORD_MIN} characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" required>
<label for="password_again">The same password again</label>
<input id="password_again" name="password_again" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN}" required>
<h2>Authenticator</h2>
<p>Scan this code with an authenticator app (or type the key), then enter the 6-digit code it shows.</p>
<div class="qr" role="img" aria-label="QR code of your authenticator key">${trusted(qr)}</div>
<p>Key: <code class="secret" id="totp-secret">${enrolment.secret}</code></p>
<label for="code">Code from the app</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="32">
<button type="submit">Join</button>
</form>`,
      },
      error ? 400 : 200,
    );
  };

  d.router.get('/invitations/:token', async (req, res) => {
    await enrolmentPage(res, req.params.token!, await accept.open(req.params.token!));
  });

  d.router.post('/invitations/:token', async (req, res) => {
    if (!d.sameOrigin(req)) return d.render(res, { title: 'Not allowed', error: 'This form came from another site and was refused', body: html`` }, 403);
    const token = req.params.token!;
    const form = acceptForm.parse(req.body ?? {});
    // A mistake shows the same form again with the same key: the one the app may have scanned already.
    const again = async (error: string) => enrolmentPage(res, token, await accept.reopen(token, form.sealed), error);
    if (form.password !== form.password_again) return again('The two passwords differ: enter the same password twice');
    let accepted;
    try {
      accepted = await accept.accept({ token, sealed: form.sealed, password: form.password, code: form.code, source: req.ip ?? 'unknown' });
    } catch (err) {
      if (err instanceof DomainError && err.code === 'VALIDATION_ERROR' && Array.isArray(err.details)) return again(err.message);
      throw err;
    }
    const { member, recoveryCodes } = accepted;
    d.render(res, {
      title: 'Welcome',
      notice: `You are a member of the workspace as ${member.role}.`,
      body: html`<section><h2>Your recovery codes</h2>
<p>Each works once instead of an authenticator code, if you lose your phone. Keep them somewhere safe: they are shown only now.</p>
<pre class="secret" id="recovery-codes">${recoveryCodes.join('\n')}</pre></section>
<p><a href="/dashboard/sign-in">Sign in</a></p>`,
    });
  });

  const signInBody = () =>
    html`<form method="post" class="card" action="/dashboard/sign-in">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="code">Authenticator code (or a recovery code)</label>
<input id="code" name="code" autocapitalize="none" spellcheck="false" autocomplete="one-time-code" required maxlength="32">
<button type="submit">Sign in</button>
</form>`;

  d.router.get('/sign-in', async (req, res) => {
    if (await d.member(req)) return res.redirect(303, '/dashboard/security');
    d.render(res, { title: 'Sign in', body: signInBody() });
  });

  d.router.post('/sign-in', async (req, res) => {
    if (!d.sameOrigin(req)) return d.render(res, { title: 'Not allowed', error: 'This form came from another site and was refused', body: signInBody() }, 403);
    const parsed = signInForm.safeParse(req.body ?? {});
    if (!parsed.success) return d.render(res, { title: 'Sign in', error: 'Enter your email, password and authenticator code', body: signInBody() }, 400);
    const form = parsed.data;
    const result = await signIn.execute({ email: form.email, password: form.password, code: form.code, source: req.ip ?? 'unknown' });
    // Any session the browser held before is ended: one browser, one session.
    const previous = await d.member(req);
    if (previous) await signIn.signOut(previous, req.ip ?? 'unknown');
    d.setSessionCookie(res, result.token);
    res.redirect(303, '/dashboard/security');
  });

  d.router.post('/sign-out', async (req, res) => {
    const member = await d.member(req);
    if (member && d.sameOrigin(req) && (req.body as Record<string, unknown> | undefined)?._csrf === member.session.csrfToken) {
      await signIn.signOut(member, req.ip ?? 'unknown');
    }
    d.clearSessionCookie(res);
    res.redirect(303, '/dashboard/sign-in');
  });
}
