// The delivery log of a webhook endpoint in the dashboard (issue 32, ADR
// 0033): each delivery with the exact payload sent and the receiver's answer
// (its status, the excerpt of its body the sender keeps, when, how many
// attempts), filtered by state a page at a time; owners redeliver one, or
// every failed one since a time. All through ManageDeliveries, the use case
// of GET /v2/webhooks/{id}/deliveries and its redeliver routes.
import type { Request } from 'express';
import { z } from 'zod';
import { AuditTrail } from '../../../application/members/audit-trail.js';
import { memberPrincipal } from '../../../application/members/member-principal.js';
import { ManageDeliveries } from '../../../application/webhooks/manage-deliveries.js';
import { may } from '../../../domain/members/member.js';
import type { SignedInMember } from '../../../domain/members/session.js';
import type { NetworkSide } from '../../../domain/money/networks.js';
import type { WebhookDelivery } from '../../../domain/webhooks/ports.js';
import type { WebhookEndpoint } from '../../../domain/webhooks/webhook-endpoint.js';
import { pageQuery } from '../pagination.js';
import { redeliverFailedBody } from '../webhooks.js';
import type { Dashboard } from './dashboard.js';
import { csrfField, html, table, when, type Html } from './html.js';
import { dateTimeField, pathId, sideField, sideInput, sideQuery } from './page-params.js';

const STATUSES = ['PENDING', 'DELIVERED', 'FAILED'] as const;
const LOG_PAGE = 20;
const logQuery = z.object({ side: sideQuery, status: z.enum(STATUSES).optional(), page: pageQuery.shape.page });
const redeliverForm = z.object({ side: sideField });
const redeliverFailedForm = z.object({ side: sideField, since: dateTimeField.pipe(redeliverFailedBody.shape.since) });

export const endpointPath = (id: string, side: NetworkSide): string => `/dashboard/webhooks/${id}?side=${side}`;

/** Renders an endpoint's delivery log for the page's query. */
export type DeliveryLog = (req: Request, member: SignedInMember, endpoint: WebhookEndpoint, side: NetworkSide) => Promise<Html>;

const answerOf = (x: WebhookDelivery): Html =>
  x.attempts === 0 && x.lastAttemptAt === null
    ? html`not sent yet`
    : html`${x.responseStatus === null ? 'no answer' : `HTTP ${x.responseStatus}`}${x.lastError ? html`<br><code>${x.lastError}</code>` : ''}`;

export function webhookDeliveryPages(d: Dashboard): DeliveryLog {
  const deliveries = d.resolve(ManageDeliveries);
  const audit = d.resolve(AuditTrail);

  d.post('/webhooks/:id/deliveries/:deliveryId/redeliver', 'manage', redeliverForm, async ({ req, res, member, actor }, f) => {
    const delivery = await audit.within(member.workspaceId, actor, 'webhook.redeliver', async () => {
      const r = await deliveries.redeliver(memberPrincipal(member, f.side), pathId(req.params.id), pathId(req.params.deliveryId));
      return { result: r, target: r.id, after: { endpoint_id: r.endpointId, event: r.event } };
    });
    res.redirect(303, `${endpointPath(delivery.endpointId, f.side)}&done=redelivered`);
  });

  d.post('/webhooks/:id/redeliver-failed', 'manage', redeliverFailedForm, async ({ req, res, member, actor }, f) => {
    const id = pathId(req.params.id);
    const r = await audit.within(member.workspaceId, actor, 'webhook.redeliver-failed', async () => {
      const done = await deliveries.redeliverFailed(memberPrincipal(member, f.side), id, new Date(f.since));
      return { result: done, target: id, after: { since: new Date(f.since).toISOString(), redelivered: done.redelivered, more: done.more } };
    });
    const done = r.more ? 'redelivered-more' : r.redelivered === 0 ? 'redelivered-none' : 'redelivered-some';
    res.redirect(303, `${endpointPath(id, f.side)}&done=${done}`);
  });

  return async (req, member, endpoint, side) => {
    const q = logQuery.parse({ side: req.query.side, status: req.query.status, page: req.query.page });
    const found = await deliveries.list(memberPrincipal(member, side), endpoint.id, { status: q.status }, { page: q.page, limit: LOG_PAGE });
    const manage = may(member.role, 'manage');
    const base = `/dashboard/webhooks/${endpoint.id}`;
    const link = (status: string | undefined, page: number) => `${endpointPath(endpoint.id, side)}${status ? `&status=${status}` : ''}${page > 1 ? `&page=${page}` : ''}#deliveries`;
    const pages = Math.max(1, Math.ceil(found.total / LOG_PAGE));
    const redeliver = (x: WebhookDelivery) =>
      manage && x.status !== 'PENDING'
        ? html`<form method="post" action="${base}/deliveries/${x.id}/redeliver" class="inline">${csrfField(member)}${sideInput(side)}<button type="submit" class="secondary" aria-label="Redeliver ${x.id}">Redeliver</button></form>`
        : '';
    return html`<h2 id="deliveries">Delivery log</h2>
<p>Newest first; delivered and failed deliveries are kept 90 days. A delivery is tried five times (at once, then after 1, 2, 4 and 8 minutes) before it is FAILED; a redelivery is one more attempt with the same delivery id.</p>
<nav aria-label="Deliveries by state"><ul class="row">${[undefined, ...STATUSES].map(
      (s) => html`<li><a href="${link(s, 1)}"${s === q.status ? html` aria-current="page"` : ''}>${s ?? 'All'}</a></li>`,
    )}</ul></nav>
${table(
  `Deliveries${q.status ? ` (${q.status})` : ''}, page ${found.page} of ${pages}`,
  ['Delivery', 'Event', 'Created', 'Status', 'Attempts', 'Answer', 'Last attempt', 'Next attempt', 'Payload', ''],
  found.data.map((x) => [
    html`<code>${x.id}</code>`,
    x.event,
    when(x.createdAt),
    x.status,
    `${x.attempts} of ${x.maxAttempts}`,
    answerOf(x),
    when(x.lastAttemptAt),
    x.status === 'PENDING' ? when(x.nextAttemptAt) : '—',
    html`<details><summary>Payload<span class="visually-hidden"> of ${x.id}</span></summary><pre>${x.payload}</pre></details>`,
    redeliver(x),
  ]),
)}
${found.page > 1 ? html`<a href="${link(q.status, found.page - 1)}">Newer</a> ` : ''}${found.page < pages ? html`<a href="${link(q.status, found.page + 1)}">Older</a>` : ''}
${manage
  ? html`<form method="post" action="${base}/redeliver-failed" class="card" id="redeliver-failed-form"><h2>Redeliver every failed delivery since a time</h2>${csrfField(member)}${sideInput(side)}
<p>After an outage of your receiver: every FAILED delivery of this endpoint created at or after this time gets one more attempt.</p>
<label for="redeliver-since">Since (date and time, UTC)</label><input id="redeliver-since" name="since" type="datetime-local" step="1" required>
<button type="submit">Redeliver the failed ones</button></form>`
  : ''}`;
  };
}
