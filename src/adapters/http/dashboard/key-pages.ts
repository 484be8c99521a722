// API keys in the dashboard (issue 32, ADR 0033), on one network side at a
// time: the active keys with their scopes, IP allowlist, expiry and last use
// (api_keys.last_used_at, which authentication refreshes at most once a
// minute); owners create one (the secret shown once, in the answer) and
// revoke them. Through the use cases of /v2/api-keys with the fields and
// rules of its request body: scopes or a legacy permission, never more than
// the creator holds (an owner holds every scope).
import { z } from 'zod';
import { CreateApiKey } from '../../../application/api-keys/create-api-key.js';
import { ListApiKeys } from '../../../application/api-keys/list-api-keys.js';
import { RevokeApiKey } from '../../../application/api-keys/revoke-api-key.js';
import { AuditTrail } from '../../../application/members/audit-trail.js';
import { memberPrincipal } from '../../../application/members/member-principal.js';
import { MAX_ACTIVE_KEYS_PER_SIDE, type ApiKey } from '../../../domain/auth/api-key.js';
import { LEGACY_PERMISSIONS, SCOPES } from '../../../domain/auth/scopes.js';
import { may } from '../../../domain/members/member.js';
import { createBody } from '../api-keys.js';
import type { Dashboard } from './dashboard.js';
import { codeField, csrfField, html, table, when } from './html.js';
import { asList, dateTimeField, pathId, sideField, sideInput, sideLabel, sideQuery, sideSwitch } from './page-params.js';

const DONE: Record<string, string> = { revoked: 'Key revoked: it is refused from its next request on.' };
const doneNotice = (done: unknown): string | undefined => (typeof done === 'string' && Object.hasOwn(DONE, done) ? DONE[done] : undefined);

/** An empty form field is a field not given. */
const emptyIsAbsent = (v: unknown): unknown => (v === '' ? undefined : v);
const createForm = z.object({
  side: sideField,
  label: createBody.shape.label,
  scopes: z.preprocess(asList, createBody.shape.scopes.unwrap()),
  permission: z.preprocess(emptyIsAbsent, createBody.shape.permission.unwrap().optional()),
  // One entry a line (or separated by commas or spaces), as the API's allowed_ips array.
  allowed_ips: z
    .string()
    .max(100 * 65)
    .optional()
    .transform((s) => (s ?? '').split(/[\s,]+/).filter((x) => x.length > 0))
    .pipe(createBody.shape.allowed_ips.unwrap().unwrap()),
  expires_at: z.preprocess(emptyIsAbsent, dateTimeField.pipe(createBody.shape.expires_at.unwrap().unwrap()).optional()),
});
const sideForm = z.object({ side: sideField });

const grantOf = (k: ApiKey): string => (k.scopes.length > 0 ? k.scopes.join(', ') : `${k.permission ?? 'none'} (legacy permission)`);

export function keyPages(d: Dashboard): void {
  const list = d.resolve(ListApiKeys);
  const create = d.resolve(CreateApiKey);
  const revoke = d.resolve(RevokeApiKey);
  const audit = d.resolve(AuditTrail);

  d.get('/keys', 'read', async ({ req, res, member }) => {
    const side = sideQuery.parse(req.query.side) ?? d.defaultSide;
    const keys = await list.execute(memberPrincipal(member, side), { page: 1, limit: MAX_ACTIVE_KEYS_PER_SIDE });
    const manage = may(member.role, 'manage');
    d.render(res, {
      title: 'API keys',
      member,
      current: 'keys',
      notice: doneNotice(req.query.done),
      body: html`${sideSwitch('/dashboard/keys', side)}
<p>${sideLabel(side)}: the active keys (neither revoked nor expired), newest first. Last use is recorded to the minute.</p>
${table(
  'Active keys',
  ['Label', 'Key id', 'Scopes', 'IP allowlist', 'Expires', 'Last used', 'Created', ''],
  keys.data.map((k) => [
    k.label,
    html`<code>${k.keyId}</code>`,
    grantOf(k),
    k.allowedIps.length > 0 ? k.allowedIps.join(', ') : 'any address',
    k.expiresAt ? when(k.expiresAt) : 'never',
    k.lastUsedAt ? when(k.lastUsedAt) : 'never',
    when(k.createdAt),
    manage
      ? html`<form method="post" action="/dashboard/keys/${k.id}/revoke" class="inline">${csrfField(member)}${sideInput(side)}<button type="submit" class="danger" aria-label="Revoke ${k.label} (${k.keyId})">Revoke</button></form>`
      : '',
  ]),
)}
${manage
  ? html`<form method="post" action="/dashboard/keys" class="card" id="create-key-form"><h2>Create a key</h2>${csrfField(member)}${sideInput(side)}
<label for="key-label">Label</label><input id="key-label" name="label" required maxlength="255">
<fieldset><legend>Scopes</legend>${SCOPES.map((s) => html`<label><input type="checkbox" name="scopes" value="${s}"> ${s}</label>`)}</fieldset>
<label for="key-permission">Or a legacy permission (used only when no scope is ticked)</label><select id="key-permission" name="permission"><option value="">none</option>${LEGACY_PERMISSIONS.map((p) => html`<option>${p}</option>`)}</select>
<label for="key-ips">IP allowlist (IPv4 or IPv6 addresses or CIDR ranges, one a line; empty: any address)</label><textarea id="key-ips" name="allowed_ips" rows="3" maxlength="6500"></textarea>
<label for="key-expires">Expires (date and time, UTC; empty: never)</label><input id="key-expires" name="expires_at" type="datetime-local" step="1">
${codeField('key-code')}
<button type="submit">Create the key</button></form>`
  : ''}`,
    });
  });

  // A key can move money: creating one asks for the second factor again, like a change of withdrawal security.
  d.post('/keys', 'manage', createForm, async ({ res, member, actor, stepUp }, f) => {
    const { key, secret } = await stepUp(() =>
      audit.within(member.workspaceId, actor, 'api-key.create', async () => {
        const r = await create.execute(memberPrincipal(member, f.side), {
          label: f.label,
          scopes: f.scopes,
          permission: f.permission ?? undefined,
          allowedIps: f.allowed_ips,
          expiresAt: f.expires_at ? new Date(f.expires_at) : undefined,
        });
        return { result: r, target: r.key.keyId, after: { label: r.key.label, scopes: [...r.key.scopes], allowed_ips: r.key.allowedIps, expires_at: r.key.expiresAt?.toISOString() ?? null } };
      }),
    );
    const side = key.isTest ? 'test' : 'live';
    d.render(res, {
      title: 'New API key',
      member,
      current: 'keys',
      notice: 'Key created. Its secret is shown only now: store it with the integration that signs requests.',
      body: html`<section><h2>${key.label}</h2>
${table('The key', ['Field', 'Value'], [
  ['Key id', html`<code id="api-key-id">${key.keyId}</code>`],
  ['Scopes', grantOf(key)],
  ['IP allowlist', key.allowedIps.length > 0 ? key.allowedIps.join(', ') : 'any address'],
  ['Expires', key.expiresAt ? when(key.expiresAt) : 'never'],
])}
<p>Secret:</p><p class="secret" id="api-key-secret">${secret}</p>
<p>Requests are signed with it (docs/api.md#authentication). It cannot be shown again: create another key if it is lost.</p></section>
<p><a href="/dashboard/keys?side=${side}">All keys</a></p>`,
    });
  }, { stepUp: true });

  d.post('/keys/:id/revoke', 'manage', sideForm, async ({ req, res, member, actor }, f) => {
    const id = pathId(req.params.id);
    await audit.within(member.workspaceId, actor, 'api-key.revoke', async () => {
      await revoke.execute(memberPrincipal(member, f.side), id);
      return { result: null, target: id };
    });
    res.redirect(303, `/dashboard/keys?side=${f.side}&done=revoked`);
  });
}
