// HTML for the dashboard's server-rendered pages (ADR 0033): a tagged template
// that escapes every interpolated value unless it is already Html, and the one
// layout every page shares (a skip link, the navigation, the main landmark).
import escapeHtml from 'escape-html';
import { may, type MemberAction } from '../../../domain/members/member.js';
import type { SignedInMember } from '../../../domain/members/session.js';

/** Markup that is safe to insert as is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | bigint | boolean | null | undefined | readonly Value[];

const render = (v: Value): string => {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v as string | number | bigint | boolean));
};

/** html`<p>${text}</p>`: every value escaped, Html and arrays of it inserted as they are. */
export const html = (strings: TemplateStringsArray, ...values: Value[]): Html =>
  new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]!) : ''), ''));

/** Markup built elsewhere and known to be safe (a QR code's SVG from the library, a chart). */
export const trusted = (markup: string): Html => new Html(markup);

const NAV: { href: string; label: string; needs: MemberAction }[] = [
  { href: 'security', label: 'Withdrawal security', needs: 'read' },
  { href: 'approvals', label: 'Approvals', needs: 'read' },
  { href: 'money', label: 'Money', needs: 'read' },
  { href: 'webhooks', label: 'Webhooks', needs: 'read' },
  { href: 'keys', label: 'API keys', needs: 'read' },
  { href: 'fees', label: 'Fees', needs: 'read' },
  { href: 'members', label: 'Members', needs: 'read' },
  { href: 'audit', label: 'Audit log', needs: 'manage' },
];

export interface PageOptions {
  title: string;
  body: Html;
  /** The signed-in member, for the navigation and the sign-out form; absent on the sign-in pages. */
  member?: SignedInMember;
  /** The navigation entry to mark current. */
  current?: string;
  /** A notice shown above the page (the result of the last change). */
  notice?: string;
  error?: string;
}

/** A whole page. Every form of a signed-in page carries the session's CSRF token (see csrfField). */
export function page(o: PageOptions): string {
  const m = o.member;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title} · Wallet dashboard</title>
<link rel="stylesheet" href="/dashboard/assets/style.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <strong class="brand">Wallet dashboard</strong>
  ${m
    ? html`<nav aria-label="Sections"><ul>${NAV.filter((n) => may(m.role, n.needs)).map(
        (n) => html`<li><a href="/dashboard/${n.href}"${n.href === o.current ? html` aria-current="page"` : ''}>${n.label}</a></li>`,
      )}</ul></nav>
  <form method="post" action="/dashboard/sign-out" class="signout">${csrfField(m)}<span>${m.email} · ${m.role}</span> <button type="submit">Sign out</button></form>`
    : ''}
</header>
<main id="main" tabindex="-1">
<h1>${o.title}</h1>
${o.notice ? html`<p class="notice" role="status">${o.notice}</p>` : ''}
${o.error ? html`<p class="error" role="alert">${o.error}</p>` : ''}
${o.body}
</main>
</body>
</html>
`.text;
}

/** The hidden field that carries the session's CSRF token in a form. */
export const csrfField = (m: SignedInMember): Html => html`<input type="hidden" name="_csrf" value="${m.session.csrfToken}">`;

/** The second-factor field every change of withdrawal security asks for. */
export const codeField = (id: string): Html =>
  html`<label for="${id}">Authenticator code (or a recovery code)</label>
<input id="${id}" name="code" autocomplete="one-time-code" autocapitalize="none" spellcheck="false" required maxlength="32">`;

/** A table from a header row and rows of cells. */
export const table = (caption: string, head: readonly string[], rows: readonly Value[][]): Html =>
  rows.length === 0
    ? html`<p class="empty">${caption}: none.</p>`
    : html`<div class="scroll"><table><caption>${caption}</caption><thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table></div>`;

/** A date as people read it in the dashboard (UTC, to the second). */
export const when = (d: Date | null | undefined): string => (d ? `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC` : '—');
