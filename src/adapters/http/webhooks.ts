// /v2/webhooks (docs/api.md#webhooks): register, list, read, change, delete
// endpoints and rotate their secrets. Secrets appear only in the create and
// rotate responses. Not idempotent: a replay would have to keep the secret.
import { z } from 'zod';
import { ChangeWebhookEndpoint } from '../../application/webhooks/change-webhook-endpoint.js';
import { CreateWebhookEndpoint } from '../../application/webhooks/create-webhook-endpoint.js';
import { ReadWebhookEndpoints } from '../../application/webhooks/read-webhook-endpoints.js';
import { ManageDeliveries, REDELIVER_FAILED_MAX } from '../../application/webhooks/manage-deliveries.js';
import type { WebhookDelivery } from '../../domain/webhooks/ports.js';
import { scope } from '../../domain/auth/principal.js';
import { mapPage } from '../../domain/pagination.js';
import { EVENT_NAMES } from '../../domain/webhooks/events.js';
import type { WebhookEndpoint } from '../../domain/webhooks/webhook-endpoint.js';
import { messageSchema } from './api-keys.js';
import { principalOf } from './authenticate.js';
import { idParams, pageOf, timestamp, uuid } from './common-schemas.js';
import { pageQuery } from './pagination.js';
import type { Resource } from './route.js';
import { parse } from './validation.js';

const eventName = z.enum(EVENT_NAMES).meta({ id: 'EventName' });
const events = z.array(eventName).min(1, 'must name at least one event').max(EVENT_NAMES.length * 2);
const url = z.string().min(1).max(2048).meta({ description: 'A public https URL (docs/api.md#webhooks)', example: 'https://example.com/hooks/wallet' });

export const createBody = z.strictObject({ url, events });
export const patchBody = z.strictObject({ url: url.optional(), events: events.optional(), is_active: z.boolean().optional() });
export const webhookSchema = z
  .strictObject({ id: uuid, url: z.string(), events: z.array(eventName), is_active: z.boolean(), created_at: timestamp })
  .meta({ id: 'WebhookEndpoint' });
export const createdWebhookSchema = webhookSchema
  .extend({ secret: z.string().meta({ description: 'Signs deliveries; shown once' }) })
  .meta({ id: 'CreatedWebhookEndpoint' });
export const rotatedWebhookSchema = createdWebhookSchema
  .extend({ previous_secret_expires_at: timestamp.meta({ description: 'Until then deliveries are signed with both secrets' }) })
  .meta({ id: 'RotatedWebhookEndpoint' });

export const presentWebhook = (e: WebhookEndpoint): z.infer<typeof webhookSchema> => ({
  id: e.id,
  url: e.url,
  events: e.events,
  is_active: e.isActive,
  created_at: e.createdAt.toISOString(),
});

export const deliverySchema = z
  .strictObject({
    id: uuid.meta({ description: 'The delivery id, as in X-Service-Delivery: the same on every attempt' }),
    webhook_id: uuid,
    event: eventName,
    status: z.enum(['PENDING', 'DELIVERED', 'FAILED']),
    response_status: z.number().int().nullable().meta({ description: 'HTTP status of the last answer; null when none came' }),
    attempts: z.number().int().min(0),
    last_error: z.string().nullable(),
    payload: z.string().meta({ description: 'The exact body sent (the signature covers these bytes)' }),
    created_at: timestamp,
    last_attempt_at: timestamp.nullable(),
    next_attempt_at: timestamp.nullable().meta({ description: 'Earliest time of the next attempt; null once DELIVERED or FAILED' }),
    delivered_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

export const presentDelivery = (d: WebhookDelivery): z.infer<typeof deliverySchema> => ({
  id: d.id,
  webhook_id: d.endpointId,
  event: d.event,
  status: d.status,
  response_status: d.responseStatus,
  attempts: d.attempts,
  last_error: d.lastError,
  payload: d.payload,
  created_at: d.createdAt.toISOString(),
  last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
  next_attempt_at: d.status === 'PENDING' ? (d.nextAttemptAt?.toISOString() ?? null) : null,
  delivered_at: d.deliveredAt?.toISOString() ?? null,
});

const deliveryQuery = pageQuery.extend({
  status: z.enum(['PENDING', 'DELIVERED', 'FAILED']).optional().meta({ description: 'Only deliveries in this state' }),
});
const deliveryParams = idParams.extend({ delivery_id: z.string().meta({ override: { type: 'string', format: 'uuid' } }) });
const EARLIEST_SINCE = Date.UTC(1970, 0, 1);
const LATEST_SINCE = Date.UTC(10000, 0, 1) - 1;
export const redeliverFailedBody = z.strictObject({
  since: timestamp
    .refine((v) => {
      const t = Date.parse(v);
      return t >= EARLIEST_SINCE && t <= LATEST_SINCE;
    }, 'must be a date-time from 1970 to 9999')
    .meta({ description: 'Re-send every FAILED delivery of the endpoint created at or after this time' }),
});
export const redeliveredSchema = z
  .strictObject({
    redelivered: z.number().int().min(0).meta({ description: 'FAILED deliveries queued for one more attempt' }),
    more: z.boolean().meta({ description: `True when more than ${REDELIVER_FAILED_MAX} matched: call again to queue the rest` }),
  })
  .meta({ id: 'RedeliveredFailed' });

interface WebhookDeps {
  create: CreateWebhookEndpoint;
  read: ReadWebhookEndpoints;
  change: ChangeWebhookEndpoint;
  deliveries: ManageDeliveries;
}

export const webhooksResource: Resource<WebhookDeps> = {
  mount: '/webhooks',
  tag: 'Webhooks',
  deps: (resolve) => ({
    create: resolve(CreateWebhookEndpoint),
    read: resolve(ReadWebhookEndpoints),
    change: resolve(ChangeWebhookEndpoint),
    deliveries: resolve(ManageDeliveries),
  }),
  routes: [
    {
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint (at most 10 per workspace and network side)',
      method: 'post',
      path: '/',
      access: scope('webhooks:write'),
      request: { body: createBody },
      responses: { 201: { description: 'The endpoint and its secret (shown once)', schema: createdWebhookSchema } },
      errors: ['WEBHOOK_LIMIT_REACHED'],
      handle: (deps) => async (req, res) => {
        const body = parse(createBody, req.body);
        const { endpoint, secret } = await deps.create.execute(principalOf(res), { url: body.url, events: body.events });
        const view: z.infer<typeof createdWebhookSchema> = { ...presentWebhook(endpoint), secret };
        res.status(201).json(view);
      },
    },
    {
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints, newest first',
      method: 'get',
      path: '/',
      access: scope('webhooks:read'),
      request: { query: pageQuery },
      responses: { 200: { description: 'A page of endpoints', schema: pageOf(webhookSchema) } },
      errors: [],
      handle: (deps) => async (req, res) => {
        const page = parse(pageQuery, req.query);
        res.json(mapPage(await deps.read.list(principalOf(res), page), presentWebhook));
      },
    },
    {
      operationId: 'getWebhookEndpoint',
      summary: 'Get a webhook endpoint',
      method: 'get',
      path: '/:id',
      access: scope('webhooks:read'),
      request: { params: idParams },
      responses: { 200: { description: 'The endpoint', schema: webhookSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        res.json(presentWebhook(await deps.read.get(principalOf(res), String(req.params.id))));
      },
    },
    {
      operationId: 'updateWebhookEndpoint',
      summary: 'Change a webhook endpoint: only the fields given change',
      method: 'patch',
      path: '/:id',
      access: scope('webhooks:write'),
      request: { params: idParams, body: patchBody },
      responses: { 200: { description: 'The endpoint as changed', schema: webhookSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        const body = parse(patchBody, req.body);
        const endpoint = await deps.change.update(principalOf(res), String(req.params.id), {
          url: body.url,
          events: body.events,
          isActive: body.is_active,
        });
        res.json(presentWebhook(endpoint));
      },
    },
    {
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint with its delivery history (refused while a delivery is pending)',
      method: 'delete',
      path: '/:id',
      access: scope('webhooks:write'),
      request: { params: idParams },
      responses: { 200: { description: 'Deleted', schema: messageSchema } },
      errors: ['NOT_FOUND', 'CONFLICT'],
      handle: (deps) => async (req, res) => {
        await deps.change.delete(principalOf(res), String(req.params.id));
        const view: z.infer<typeof messageSchema> = { message: 'Webhook endpoint deleted' };
        res.json(view);
      },
    },
    {
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret: the new one is shown once, the previous one stays valid for 24 hours',
      method: 'post',
      path: '/:id/rotate-secret',
      access: scope('webhooks:write'),
      request: { params: idParams },
      responses: { 200: { description: 'The endpoint with its new secret', schema: rotatedWebhookSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        const { endpoint, secret } = await deps.change.rotateSecret(principalOf(res), String(req.params.id));
        const view: z.infer<typeof rotatedWebhookSchema> = {
          ...presentWebhook(endpoint),
          secret,
          previous_secret_expires_at: endpoint.previousSecretExpiresAt!.toISOString(),
        };
        res.json(view);
      },
    },
      {
      operationId: 'listWebhookDeliveries',
      summary: 'The delivery log of an endpoint, newest first (kept 90 days once delivered or failed)',
      method: 'get',
      path: '/:id/deliveries',
      access: scope('webhooks:read'),
      request: { params: idParams, query: deliveryQuery },
      responses: { 200: { description: 'A page of deliveries', schema: pageOf(deliverySchema) } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        const { status, ...page } = parse(deliveryQuery, req.query);
        const found = await deps.deliveries.list(principalOf(res), String(req.params.id), { status }, page);
        res.json(mapPage(found, presentDelivery));
      },
    },
    {
      operationId: 'redeliverWebhookDelivery',
      summary: 'One more attempt of a DELIVERED or FAILED delivery, with the same delivery id',
      method: 'post',
      path: '/:id/deliveries/:delivery_id/redeliver',
      access: scope('webhooks:write'),
      request: { params: deliveryParams },
      responses: { 200: { description: 'The delivery, PENDING again and due at once', schema: deliverySchema } },
      errors: ['NOT_FOUND', 'CONFLICT'],
      handle: (deps) => async (req, res) => {
        const delivery = await deps.deliveries.redeliver(principalOf(res), String(req.params.id), String(req.params.delivery_id));
        res.json(presentDelivery(delivery));
      },
    },
    {
      operationId: 'redeliverFailedWebhookDeliveries',
      summary: 'Re-send every FAILED delivery of the endpoint since a time (recovery after an outage)',
      method: 'post',
      path: '/:id/deliveries/redeliver-failed',
      access: scope('webhooks:write'),
      request: { params: idParams, body: redeliverFailedBody },
      responses: { 200: { description: 'How many were queued', schema: redeliveredSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        const body = parse(redeliverFailedBody, req.body);
        const result = await deps.deliveries.redeliverFailed(principalOf(res), String(req.params.id), new Date(body.since));
        const view: z.infer<typeof redeliveredSchema> = result;
        res.json(view);
      },
    },
  ],
};
