// Webhook endpoints in the dashboard (issue 32, ADR 0033), on one network
// side at a time: the list, registering one (its signing secret shown once,
// in the answer), changing what PATCH /v2/webhooks/{id} changes, rotating the
// secret (shown once), deleting. Everyone reads; owners change. Every change
// goes through the use cases of /v2/webhooks with the fields and rules of its
// request bodies. The delivery log is in webhook-delivery-pages.ts.
import { z } from 'zod';
import { ChangeWebhookEndpoint } from '../../../application/webhooks/change-webhook-endpoint.js';
import { CreateWebhookEndpoint } from '../../../application/webhooks/create-webhook-endpoint.js';
import { ReadWebhookEndpoints } from '../../../application/webhooks/read-webhook-endpoints.js';
import { AuditTrail } from '../../../application/members/audit-trail.js';
import { memberPrincipal } from '../../../application/members/member-principal.js';
import { may } from '../../../domain/members/member.js';
import type { SignedInMember } from '../../../domain/members/session.js';
import { EVENT_NAMES, type EventName } from '../../../domain/webhooks/events.js';
import { MAX_WEBHOOK_ENDPOINTS, type WebhookEndpoint } from '../../../domain/webhooks/webhook-endpoint.js';
import { createBody } from '../webhooks.js';
import type { Dashboard } from './dashboard.js';
import { codeField, csrfField, html, table, when, type Html } from './html.js';
import { asList, pathId, sideField, sideInput, sideLabel, sideQuery, sideSwitch } from './page-params.js';
import { endpointPath, webhookDeliveryPages } from './webhook-delivery-pages.js';

const DONE: Record<string, string> = {
  changed: 'Saved.',
  deleted: 'Endpoint deleted, with its delivery history.',
  redelivered: 'One more attempt of the delivery is queued, with the same delivery id.',
  'redelivered-none': 'No failed delivery of this endpoint since that time: nothing was queued.',
  'redelivered-some': 'Every failed delivery since that time is queued for one more attempt.',
  'redelivered-more': 'The first 1000 failed deliveries since that time are queued: send the form again for the rest.',
};

/** The fixed message of a `?done=` key; anything else shows nothing (never the query's text). */
const doneNotice = (done: unknown): string | undefined => (typeof done === 'string' && Object.hasOwn(DONE, done) ? DONE[done] : undefined);

const events = z.preprocess(asList, createBody.shape.events);
const createForm = z.object({ side: sideField, url: createBody.shape.url, events });
const changeForm = z.object({
  side: sideField,
  url: createBody.shape.url,
  events,
  // A checkbox: sent when ticked, absent when not.
  is_active: z.literal('on').optional().transform((v) => v === 'on'),
});
const sideForm = z.object({ side: sideField });

const eventBoxes = (prefix: string, checked: readonly EventName[]): Html =>
  html`<fieldset><legend>Events</legend>${EVENT_NAMES.map(
    (e) => html`<label><input type="checkbox" name="events" value="${e}" id="${prefix}-${e}"${checked.includes(e) ? html` checked` : ''}> ${e}</label>`,
  )}</fieldset>`;

const urlField = (id: string, value: string): Html =>
  html`<label for="${id}">URL (https, public; it receives a signed POST per event)</label><input id="${id}" name="url" type="url" required maxlength="2048" value="${value}">`;

export function webhookPages(d: Dashboard): void {
  const create = d.resolve(CreateWebhookEndpoint);
  const read = d.resolve(ReadWebhookEndpoints);
  const change = d.resolve(ChangeWebhookEndpoint);
  const audit = d.resolve(AuditTrail);
  const deliveryLog = webhookDeliveryPages(d);

  d.get('/webhooks', 'read', async ({ req, res, member }) => {
    const side = sideQuery.parse(req.query.side) ?? d.defaultSide;
    const found = await read.list(memberPrincipal(member, side), { page: 1, limit: MAX_WEBHOOK_ENDPOINTS });
    d.render(res, {
      title: 'Webhooks',
      member,
      current: 'webhooks',
      notice: doneNotice(req.query.done),
      body: html`${sideSwitch('/dashboard/webhooks', side)}
<p>${sideLabel(side)}: events of this side are POSTed, signed with the endpoint's secret, to each active endpoint that wants them. At most ${MAX_WEBHOOK_ENDPOINTS} endpoints per side.</p>
${table(
  'Endpoints',
  ['URL', 'Events', 'Active', 'Created', ''],
  found.data.map((e) => [
    html`<code>${e.url}</code>`,
    e.events.join(', '),
    e.isActive ? 'yes' : 'no',
    when(e.createdAt),
    html`<a href="${endpointPath(e.id, side)}">Deliveries and settings<span class="visually-hidden"> of ${e.url}</span></a>`,
  ]),
)}
${may(member.role, 'manage')
  ? html`<form method="post" action="/dashboard/webhooks" class="card" id="create-webhook-form"><h2>Register an endpoint</h2>${csrfField(member)}${sideInput(side)}
${urlField('webhook-url', '')}${eventBoxes('create', [])}${codeField('create-webhook-code')}<button type="submit">Register</button></form>`
  : ''}`,
    });
  });

  d.post('/webhooks', 'manage', createForm, async ({ res, member, actor, stepUp }, f) => {
    const { endpoint, secret } = await stepUp(() => audit.within(member.workspaceId, actor, 'webhook.create', async () => {
      const r = await create.execute(memberPrincipal(member, f.side), { url: f.url, events: f.events });
      return { result: r, target: r.endpoint.id, after: endpointView(r.endpoint) };
    }));
    showSecret(d, res, member, endpoint, secret, 'Endpoint registered. Its signing secret is shown only now: store it where your receiver reads it.');
  }, { stepUp: true });

  d.get('/webhooks/:id', 'read', async ({ req, res, member }) => {
    const side = sideQuery.parse(req.query.side) ?? d.defaultSide;
    const endpoint = await read.get(memberPrincipal(member, side), pathId(req.params.id));
    const manage = may(member.role, 'manage');
    const base = `/dashboard/webhooks/${endpoint.id}`;
    d.render(res, {
      title: 'Webhook endpoint',
      member,
      current: 'webhooks',
      notice: doneNotice(req.query.done),
      body: html`<p><a href="/dashboard/webhooks?side=${side}">All endpoints (${sideLabel(side)})</a></p>
${table('Endpoint', ['Setting', 'Value'], [
  ['URL', html`<code id="webhook-url-now">${endpoint.url}</code>`],
  ['Events', endpoint.events.join(', ')],
  ['Active', endpoint.isActive ? 'yes' : 'no'],
  ['Side', sideLabel(side)],
  ['Created', when(endpoint.createdAt)],
  ['Previous secret valid until', endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > new Date() ? when(endpoint.previousSecretExpiresAt) : '—'],
])}
${manage
  ? html`<form method="post" action="${base}" class="card" id="change-webhook-form"><h2>Change the endpoint</h2>${csrfField(member)}${sideInput(side)}
${urlField('change-url', endpoint.url)}${eventBoxes('change', endpoint.events)}
<label><input type="checkbox" name="is_active" id="change-active"${endpoint.isActive ? html` checked` : ''}> Active (an inactive endpoint gets no new deliveries)</label>
${codeField('change-webhook-code')}<button type="submit">Save</button></form>
<form method="post" action="${base}/rotate" class="card" id="rotate-webhook-form"><h2>Rotate the signing secret</h2>${csrfField(member)}${sideInput(side)}
<p>A new secret is shown once; for 24 hours deliveries carry a signature with the previous one too.</p>${codeField('rotate-webhook-code')}<button type="submit">Rotate the secret</button></form>
<form method="post" action="${base}/delete" class="card" id="delete-webhook-form"><h2>Delete the endpoint</h2>${csrfField(member)}${sideInput(side)}
<p>Its delivery history goes with it. Refused while a delivery to it is pending.</p>${codeField('delete-webhook-code')}<button type="submit" class="danger">Delete the endpoint</button></form>`
  : ''}
${await deliveryLog(req, member, endpoint, side)}`,
    });
  });

  d.post('/webhooks/:id', 'manage', changeForm, async ({ req, res, member, actor, stepUp }, f) => {
    const principal = memberPrincipal(member, f.side);
    const id = pathId(req.params.id);
    const endpoint = await stepUp(() => audit.within(member.workspaceId, actor, 'webhook.change', async () => {
      const before = await read.get(principal, id);
      const after = await change.update(principal, id, { url: f.url, events: f.events, isActive: f.is_active });
      return { result: after, target: after.id, before: endpointView(before), after: endpointView(after) };
    }));
    res.redirect(303, `${endpointPath(endpoint.id, f.side)}&done=changed`);
  }, { stepUp: true });

  d.post('/webhooks/:id/rotate', 'manage', sideForm, async ({ req, res, member, actor, stepUp }, f) => {
    const { endpoint, secret } = await stepUp(() => audit.within(member.workspaceId, actor, 'webhook.rotate-secret', async () => {
      const r = await change.rotateSecret(memberPrincipal(member, f.side), pathId(req.params.id));
      return { result: r, target: r.endpoint.id };
    }));
    const until = endpoint.previousSecretExpiresAt ? ` The previous secret keeps signing until ${when(endpoint.previousSecretExpiresAt)}.` : '';
    showSecret(d, res, member, endpoint, secret, `New signing secret, shown only now.${until}`);
  }, { stepUp: true });

  d.post('/webhooks/:id/delete', 'manage', sideForm, async ({ req, res, member, actor, stepUp }, f) => {
    const principal = memberPrincipal(member, f.side);
    const id = pathId(req.params.id);
    await stepUp(() => audit.within(member.workspaceId, actor, 'webhook.delete', async () => {
      const before = await read.get(principal, id);
      await change.delete(principal, id);
      return { result: null, target: id, before: endpointView(before) };
    }));
    res.redirect(303, `/dashboard/webhooks?side=${f.side}&done=deleted`);
  }, { stepUp: true });
}

/** An endpoint as the audit log records it (never its secret). */
const endpointView = (e: WebhookEndpoint) => ({ url: e.url, events: e.events, is_active: e.isActive, side: e.side });

/** The answer to a registration or a rotation: the secret, this once, in an element tests and people find by its id. */
function showSecret(d: Dashboard, res: Parameters<Dashboard['render']>[0], member: SignedInMember, endpoint: WebhookEndpoint, secret: string, notice: string): void {
  d.render(res, {
    title: 'Webhook signing secret',
    member,
    current: 'webhooks',
    notice,
    body: html`<section><h2>Signing secret of <code>${endpoint.url}</code></h2>
<p class="secret" id="webhook-secret">${secret}</p>
<p>Receivers check each delivery's X-Service-Signature with it (docs/api.md#webhooks). It cannot be shown again: rotate it if it is lost.</p></section>
<p><a href="${endpointPath(endpoint.id, endpoint.side)}">To the endpoint</a> · <a href="/dashboard/webhooks?side=${endpoint.side}">All endpoints</a></p>`,
  });
}
