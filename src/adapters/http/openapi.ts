// The OpenAPI 3.1 document of the API, generated from the route
// declarations and their zod schemas (zod-openapi): every route with its
// scope, the HMAC security scheme, idempotency headers, the pagination
// envelope, and every error response with the codes the route may answer.
// Served at GET /v2/openapi.json and written to docs/openapi.json by
// `npm run openapi`; a test keeps the committed file equal to this.
import { z } from 'zod';
import { EVENT_NAMES } from '../../domain/webhooks/events.js';
import { eventEnvelopeSchema } from '../webhooks/event-schemas.js';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import type { Access } from '../../domain/auth/principal.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../../domain/error-catalogue.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../domain/idempotency/idempotency.js';
import { validationDetail } from './common-schemas.js';
import { RESOURCES } from './resources.js';
import { fullPath, type Resource, type RouteDef } from './route.js';

export const API_VERSION = '2.0.0';

const SIGNING = [
  'Every request under /v2 (but this document) is signed with an API key.',
  'Send three headers: `X-Service-Key` (the key id), `X-Service-Timestamp` (Unix seconds, within 5 minutes of the server clock)',
  'and `X-Service-Signature`: the lowercase hex HMAC-SHA256, keyed with the key secret, of',
  '`TIMESTAMP.METHOD.PATH.BODY_SHA256`, where PATH is the request target with its query string exactly as sent',
  'and BODY_SHA256 the lowercase hex SHA-256 of the body bytes (of the empty string without a body).',
  'A signature is accepted once. See docs/api.md#authentication and docs/signing-test-vectors.md.',
].join(' ');

/** What every signed route may answer, whatever it does. */
const SIGNED_ERRORS: ErrorCode[] = [
  'VALIDATION_ERROR',
  'MISSING_AUTH_HEADERS',
  'TIMESTAMP_EXPIRED',
  'INVALID_SIGNATURE',
  'REPLAY_DETECTED',
  'INVALID_API_KEY',
  'API_KEY_EXPIRED',
  'WORKSPACE_NOT_FOUND',
  'IP_NOT_ALLOWED',
  'WORKSPACE_INACTIVE',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'DATABASE_ERROR',
];

const describeAccess = (a: Access): string =>
  a.kind === 'scope' ? a.scope : a.kind === 'any-key' ? 'any valid key' : 'any key holding at least one :read scope';

/** The codes a route may answer: those of every signed route, of its body, of idempotency, and its own. */
export function errorCodesOf(route: RouteDef<unknown>): ErrorCode[] {
  const codes = new Set<ErrorCode>(SIGNED_ERRORS);
  if (route.access.kind !== 'any-key') codes.add('INSUFFICIENT_SCOPE');
  if (route.method !== 'get') {
    codes.add('INVALID_JSON');
    codes.add('UNSUPPORTED_MEDIA_TYPE');
  }
  if (route.idempotent) ['IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_MISMATCH'].forEach((c) => codes.add(c as ErrorCode));
  if (route.path.includes(':')) codes.add('NOT_FOUND');
  route.errors.forEach((c) => codes.add(c));
  return [...codes];
}

const requestId = z.string().meta({ description: 'The request id; quote it to support. Echoes a well-formed X-Request-Id sent.' });

function errorResponses(codes: ErrorCode[]): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    list.sort();
    responses[`${status}` as `4${string}`] = {
      description: `${list.map((c) => `\`${c}\``).join(', ')} (docs/errors.md)`,
      headers: z.object({
        'X-Request-Id': requestId,
        ...(status === 429 ? { 'Retry-After': z.string().meta({ description: 'Seconds to wait before retrying' }) } : {}),
      }),
      content: {
        'application/json': {
          schema: z.strictObject({
            error: z.string().meta({ description: 'Human text; may change: never branch on it' }),
            code: z.enum(list as [ErrorCode, ...ErrorCode[]]),
            details: z.union([z.array(validationDetail), z.record(z.string(), z.unknown())]).optional(),
          }),
        },
      },
    };
  }
  return responses;
}

const idempotencyKeyHeader = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN)
  .optional()
  .meta({ description: 'Makes the request safe to retry: the same key (within 24 hours) answers the first outcome again' });

function operationOf(resource: Resource<unknown>, route: RouteDef<unknown>): ZodOpenApiOperationObject {
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status as `2${string}`] = {
      description: spec.description,
      headers: z.object({
        'X-Request-Id': requestId,
        ...(route.idempotent
          ? { 'Idempotent-Replay': z.literal('true').optional().meta({ description: 'Present on a replay of an earlier request with the same Idempotency-Key' }) }
          : {}),
      }),
      content: { 'application/json': { schema: spec.schema } },
    };
  }
  const header = route.idempotent ? z.object({ 'Idempotency-Key': idempotencyKeyHeader }) : undefined;
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: `Scope: ${describeAccess(route.access)}.`,
    tags: [resource.tag],
    'x-required-scope': describeAccess(route.access),
    requestParams: {
      ...(route.request?.params ? { path: route.request.params } : {}),
      ...(route.request?.query ? { query: route.request.query } : {}),
      ...(header ? { header } : {}),
    },
    ...(route.request?.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.request.body } } } } : {}),
    responses: { ...responses, ...errorResponses(errorCodesOf(route)) },
  };
}

/** express's `/wallets/:id/archive` as OpenAPI's `/wallets/{id}/archive`. */
export const openApiPath = (expressPath: string): string => expressPath.replace(/:([A-Za-z_]+)/g, '{$1}');

export const OPENAPI_PATH = '/v2/openapi.json';

/** The document object, as zod-openapi builds it. */
export type OpenApiDocument = ReturnType<typeof createDocument>;

export function openApiDocument(resources: readonly Resource<unknown>[] = RESOURCES): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {
    [OPENAPI_PATH]: {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This document',
        description: 'Not signed: anyone may read it.',
        tags: ['Meta'],
        security: [],
        responses: { '200': { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } } },
      },
    },
  };
  for (const resource of resources) {
    for (const route of resource.routes) {
      const path = openApiPath(fullPath(`/v2${resource.mount}`, route.path));
      paths[path] = { ...paths[path], [route.method]: operationOf(resource, route) };
    }
  }
  const document = createDocument({
    openapi: '3.1.0',
    // Relative, so a request built from the document (the reference page at /docs/reference, a
    // generated client pointed at the document's URL) goes to the origin that served it. Every path
    // already carries /v2 (it is the route express serves), so the server is the origin's root.
    servers: [{ url: '/', description: 'The origin serving this document; every path carries the /v2 prefix' }],
    info: {
      title: 'Wallet service API',
      version: API_VERSION,
      description:
        'Custodial wallet-as-a-service: deposit addresses, balances, fee quotes and API keys on TRON, BSC and Ethereum. ' +
        'A live key acts on the mainnets, a test key on the testnets. Errors: docs/errors.md. Guides: /docs.',
      // The service is run by an operator for its workspaces: integrators reach the people who issued their keys.
      contact: { name: 'The operator who issued your API keys (quote the X-Request-Id of the response)' },
      // No licence is granted: the package is private and the repository has no LICENSE file.
      license: { name: 'Proprietary' },
    },
    tags: tagsOf(resources),
    security: [{ ServiceKey: [], ServiceTimestamp: [], ServiceSignature: [] }],
    components: {
      securitySchemes: {
        ServiceKey: { type: 'apiKey', in: 'header', name: 'X-Service-Key', description: `The API key id (sk_live_… or sk_test_…). ${SIGNING}` },
        ServiceTimestamp: { type: 'apiKey', in: 'header', name: 'X-Service-Timestamp', description: 'Unix seconds of the signature.' },
        ServiceSignature: { type: 'apiKey', in: 'header', name: 'X-Service-Signature', description: 'HMAC-SHA256 of TIMESTAMP.METHOD.PATH.BODY_SHA256, lowercase hex.' },
      },
    },
    paths,
    webhooks: eventWebhooks(),
  });
  openResponses(document);
  return document;
}

/** What each group of operations is for, by the tag its resource declares (route.ts), in the order of the API's documentation. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Meta: 'The description of the API itself, unsigned.',
  Chains: "The networks of the key's side: their assets, confirmations and whether they are enabled.",
  'API keys': "The workspace's keys on the calling key's network: create (never more than the calling key holds), list, revoke.",
  Customers: 'Your end users, by your own reference; wallets belong to them.',
  Wallets: 'Deposit wallets: a new HD address each; archived ones leave the lists and stay monitored.',
  Withdrawals: "Sending money out: the amount locked from available at once, the owner's security settings on mainnet, cancel before sending.",
  'Deposits and transactions': 'Money that arrived at your addresses, and deposits and withdrawals together as transaction records.',
  Balances: 'Available and locked amounts per asset, from the ledger.',
  Fees: "Indicative fee quotes from the engine that settles, and the workspace's monthly fee commitment.",
  Webhooks: 'Endpoints that receive signed events; their secrets, the delivery log, redelivery and recovery.',
  'Sandbox faucet': 'Test assets for sandbox wallets, credited as normal deposits (test keys only).',
  Events: 'What the service POSTs to your webhook endpoints: one body schema per event, signed.',
};

/** One tag per group of operations, each described; a tag a resource declares without a description is a mistake. */
function tagsOf(resources: readonly Resource<unknown>[]): { name: string; description: string }[] {
  const names = [...new Set(['Meta', ...resources.map((r) => r.tag), 'Events'])];
  return names.map((name) => {
    const description = TAG_DESCRIPTIONS[name];
    if (!description) throw new Error(`The OpenAPI tag ${name} has no description in TAG_DESCRIPTIONS`);
    return { name, description };
  });
}

const DELIVERY_HEADERS = [
  ['X-Service-Event', 'The event name, as in the body'],
  ['X-Service-Timestamp', 'Unix seconds at signing time; refuse deliveries more than 300 s old'],
  ['X-Service-Signature', 'sha256=<hex>: HMAC-SHA256 of {timestamp}.{raw body} with the endpoint secret'],
  ['X-Service-Delivery', 'The delivery id, the same on every attempt: deduplicate on it'],
  ['X-Service-Signature-Previous', 'Only during the 24 hours after a secret rotation: the same, signed with the previous secret'],
] as const;

/** What the service POSTs to endpoints: one entry per event, its body's schema and the signed headers. */
function eventWebhooks(): NonNullable<Parameters<typeof createDocument>[0]['webhooks']> {
  return Object.fromEntries(
    EVENT_NAMES.map((event) => [
      event,
      {
        post: {
          operationId: `event${event}`,
          summary: `${event} delivery`,
          description: 'Verify the signature over the raw bytes before parsing (docs/api.md#verifying-a-delivery). Answer 2xx within 10 seconds.',
          tags: ['Events'],
          security: [],
          parameters: DELIVERY_HEADERS.map(([name, description]) => ({
            name,
            in: 'header' as const,
            required: name !== 'X-Service-Signature-Previous',
            description,
            schema: { type: 'string' as const },
          })),
          requestBody: { required: true, content: { 'application/json': { schema: eventEnvelopeSchema(event) } } },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery; anything else, or no answer within 10 s, is a failed attempt' } },
        },
      },
    ]),
  );
}

/**
 * Responses are open in the published document: the API adds fields over
 * time and clients must tolerate them (docs/api.md#compatibility). The tests
 * hold the service to exactly the documented fields all the same (see
 * test/support/openapi-check.ts). Request bodies stay closed: an unknown
 * field is refused.
 */
function openResponses(document: OpenApiDocument): void {
  const open = (schema: unknown): void => {
    if (schema === null || typeof schema !== 'object') return;
    const s = schema as Record<string, unknown>;
    if (s.additionalProperties === false) delete s.additionalProperties;
    for (const key of ['properties', 'items', 'anyOf', 'oneOf', 'allOf']) {
      const child = s[key];
      if (Array.isArray(child)) child.forEach(open);
      else if (key === 'properties' && child && typeof child === 'object') Object.values(child).forEach(open);
      else open(child);
    }
  };
  Object.values(document.components?.schemas ?? {}).forEach(open);
  // Event bodies too: receivers must tolerate fields added later.
  for (const item of Object.values(document.webhooks ?? {})) {
    const body = (item as { post?: { requestBody?: { content?: Record<string, { schema?: unknown }> } } }).post?.requestBody;
    for (const media of Object.values(body?.content ?? {})) open(media.schema);
  }
  for (const item of Object.values(document.paths ?? {})) {
    for (const op of Object.values(item as Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>)) {
      for (const response of Object.values(op.responses ?? {})) {
        for (const media of Object.values(response.content ?? {})) open(media.schema);
      }
    }
  }
}

/** The document as served and as committed: the same bytes. */
export const openApiJson = (): string => `${JSON.stringify(openApiDocument(), null, 2)}\n`;
