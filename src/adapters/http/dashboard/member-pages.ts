// The workspace's people and the audit log (issue 32, ADR 0033). Everyone
// sees the members; owners invite (the link shown once and mailed) and remove
// them. Owners read the audit log, a page at a time, and export it as CSV.
import { z } from 'zod';
import { ManageMembers } from '../../../application/members/manage-members.js';
import { ReadAuditLog } from '../../../application/members/read-audit.js';
import { MEMBER_ROLES, may } from '../../../domain/members/member.js';
import type { Dashboard } from './dashboard.js';
import { codeField, csrfField, html, table, when } from './html.js';

const inviteForm = z.object({ email: z.string().trim().min(3).max(320), role: z.enum(MEMBER_ROLES) });
/** The audit page's cursor: a time the database can hold (a page link's own), else the newest page. */
const auditBefore = z.iso.datetime({ offset: true }).transform((s) => new Date(s)).refine((d) => d.getUTCFullYear() >= 2000 && d.getUTCFullYear() <= 9999);
const json = (v: unknown) => (v === null || v === undefined ? '' : JSON.stringify(v));

export function memberPages(d: Dashboard): void {
  const members = d.resolve(ManageMembers);
  const audit = d.resolve(ReadAuditLog);

  d.get('/members', 'read', async ({ req, res, member }) => {
    const r = await members.list(member.workspaceId);
    const manage = may(member.role, 'manage');
    d.render(res, {
      title: 'Members',
      member,
      current: 'members',
      notice: req.query.done === 'removed' ? 'Member removed; their sessions are ended and their invitations revoked.' : req.query.done === 'revoked' ? 'Invitation revoked: its link no longer works.' : undefined,
      body: html`<p>OWNER: everything. APPROVER: approve or reject withdrawals, and read. VIEWER: read.</p>
${table(
  'Members',
  ['Email', 'Role', 'Since', ''],
  r.members.map((m) => [
    m.email,
    m.role,
    when(m.createdAt),
    manage && m.id !== member.memberId
      ? html`<form method="post" action="/dashboard/members/${m.id}/remove" class="decide">${csrfField(member)}${codeField(`remove-code-${m.id}`)}<button type="submit" class="danger" aria-label="Remove ${m.email}">Remove</button></form>`
      : '',
  ]),
)}
${table(
  'Open invitations',
  ['Email', 'Role', 'Expires', ''],
  r.invitations.map((i) => [
    i.email,
    i.role,
    when(i.expiresAt),
    manage
      ? html`<form method="post" action="/dashboard/members/invitations/${i.id}/revoke" class="inline">${csrfField(member)}<button type="submit" class="secondary" aria-label="Revoke the invitation of ${i.email}">Revoke</button></form>`
      : '',
  ]),
)}
${manage
  ? html`<form method="post" action="/dashboard/members/invite" class="card" id="invite-form"><h2>Invite a member</h2>${csrfField(member)}
<label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required maxlength="320">
<label for="invite-role">Role</label><select id="invite-role" name="role">${MEMBER_ROLES.map((role) => html`<option${role === 'VIEWER' ? html` selected` : ''}>${role}</option>`)}</select>
${codeField('invite-code')}
<button type="submit">Invite</button></form>`
  : ''}`,
    });
  });

  d.post('/members/invite', 'manage', inviteForm, async ({ res, member, actor, stepUp }, f) => {
    const r = await stepUp(() => members.invite(member.workspaceId, actor, f.email, f.role));
    d.render(res, {
      title: 'Members',
      member,
      current: 'members',
      notice: `${r.invitation.email} is invited as ${r.invitation.role}${r.mailed ? ' (mailed)' : ' (the mail could not be sent: give them the link)'}.`,
      body: html`<section><h2>The invitation link</h2><p>It works once, until ${when(r.invitation.expiresAt)}. It is shown only now.</p>
<p class="secret" id="invitation-link">${r.link}</p></section><p><a href="/dashboard/members">Back to the members</a></p>`,
    });
  }, { stepUp: true });

  d.post('/members/:id/remove', 'manage', z.object({}), async ({ req, res, member, actor, stepUp }) => {
    const id = z.uuid().safeParse(req.params.id);
    await stepUp(() => members.remove(member.workspaceId, actor, id.success ? id.data : '00000000-0000-0000-0000-000000000000'));
    res.redirect(303, '/dashboard/members?done=removed');
  }, { stepUp: true });

  // Revoking takes access away: no code asked, like revoking an API key.
  d.post('/members/invitations/:id/revoke', 'manage', z.object({}), async ({ req, res, member, actor }) => {
    const id = z.uuid().safeParse(req.params.id);
    await members.revokeInvitation(member.workspaceId, actor, id.success ? id.data : '00000000-0000-0000-0000-000000000000');
    res.redirect(303, '/dashboard/members?done=revoked');
  });

  d.get('/audit', 'manage', async ({ req, res, member }) => {
    const before = auditBefore.safeParse(req.query.before).data;
    const entries = await audit.page(member.workspaceId, before);
    const last = entries.at(-1);
    d.render(res, {
      title: 'Audit log',
      member,
      current: 'audit',
      body: html`<p>Every action of the workspace's members (and the operator's changes of its rules), newest first. <a href="/dashboard/audit.csv">Export everything as CSV</a></p>
${table(
  'Actions',
  ['When', 'Who', 'From', 'Action', 'On', 'Before', 'After'],
  entries.map((e) => [when(e.at), e.actor.label, e.actor.source, e.action, e.target ?? '', html`<code>${json(e.before)}</code>`, html`<code>${json(e.after)}</code>`]),
)}
${last && entries.length >= 100 ? html`<p><a href="/dashboard/audit?before=${last.at.toISOString()}">Older</a></p>` : ''}`,
    });
  });

  d.get('/audit.csv', 'manage', async ({ res, member }) => {
    const entries = await audit.all(member.workspaceId);
    const { stringify } = await import('csv-stringify/sync'); // loaded with the first export
    const csv = stringify(
      entries.map((e) => [e.at.toISOString(), e.actor.label, e.actor.memberId ?? '', e.actor.source, e.action, e.target ?? '', json(e.before), json(e.after)]),
      { header: true, columns: ['at', 'actor', 'member_id', 'source', 'action', 'target', 'before', 'after'], cast: { string: escapeFormula } },
    );
    res.type('text/csv').attachment(`audit-${member.workspaceId}.csv`).send(csv);
  });
}

/** A cell a spreadsheet would run as a formula is prefixed with a quote (CSV injection). */
const escapeFormula = (value: string): string => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);
