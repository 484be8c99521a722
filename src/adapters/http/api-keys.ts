// /v2/api-keys (docs/api.md#api-keys): create (secret shown once), list, revoke.
import { z } from 'zod';
import { CreateApiKey } from '../../application/api-keys/create-api-key.js';
import { ListApiKeys } from '../../application/api-keys/list-api-keys.js';
import { RevokeApiKey } from '../../application/api-keys/revoke-api-key.js';
import type { ApiKey } from '../../domain/auth/api-key.js';
import { scope } from '../../domain/auth/principal.js';
import { LEGACY_PERMISSIONS, SCOPES } from '../../domain/auth/scopes.js';
import { mapPage } from '../../domain/pagination.js';
import { principalOf } from './authenticate.js';
import { idParams, pageOf, timestamp, uuid } from './common-schemas.js';
import { pageQuery } from './pagination.js';
import { EXAMPLES } from './examples.js';
import type { Resource } from './route.js';
import { parse } from './validation.js';

export const createBody = z.strictObject({
  label: z.string().trim().min(1).max(255).meta({ description: 'Required, with `scopes` (preferred) or the legacy `permission`' }),
  scopes: z.array(z.enum(SCOPES)).max(SCOPES.length * 2).optional(),
  // null is accepted where the resource shows null (docs/api.md#api-keys): no permission, no restriction, no expiry.
  permission: z.enum(LEGACY_PERMISSIONS).nullable().optional(),
  allowed_ips: z.array(z.string().max(64)).max(100).nullable().optional(),
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
});

export const apiKeySchema = z
  .strictObject({
    id: uuid,
    label: z.string(),
    key_id: z.string().regex(/^sk_(live|test)_[A-Za-z0-9_-]+$/),
    scopes: z.array(z.enum(SCOPES)),
    permission: z.enum(LEGACY_PERMISSIONS).nullable(),
    allowed_ips: z.array(z.string()),
    is_test: z.boolean(),
    last_used_at: timestamp.nullable(),
    expires_at: timestamp.nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'ApiKey', examples: [EXAMPLES.apiKey] });
export type ApiKeyView = z.infer<typeof apiKeySchema>;

/** The create response: the key and its secret, shown this once. */
export const createdApiKeySchema = apiKeySchema
  .extend({ secret: z.string().meta({ description: 'Shown once; store it now' }) })
  .meta({ id: 'CreatedApiKey', examples: [{ ...EXAMPLES.apiKey, secret: 'shown-once-43-characters-of-base64url-xxxxxx' }] });

export const messageSchema = z.strictObject({ message: z.string() }).meta({ id: 'Message' });

export const presentApiKey = (k: ApiKey): ApiKeyView => ({
  id: k.id,
  label: k.label,
  key_id: k.keyId,
  scopes: k.scopes,
  permission: k.permission,
  allowed_ips: k.allowedIps,
  is_test: k.isTest,
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  expires_at: k.expiresAt?.toISOString() ?? null,
  created_at: k.createdAt.toISOString(),
});

interface ApiKeyDeps {
  create: CreateApiKey;
  list: ListApiKeys;
  revoke: RevokeApiKey;
}

export const apiKeysResource: Resource<ApiKeyDeps> = {
  mount: '/api-keys',
  tag: 'API keys',
  deps: (resolve) => ({ create: resolve(CreateApiKey), list: resolve(ListApiKeys), revoke: resolve(RevokeApiKey) }),
  routes: [
    {
      // Not idempotent (only withdrawals, wallets and customers are): a
      // replay would have to keep the secret, which is shown once and never
      // stored in clear. An Idempotency-Key header here is ignored.
      operationId: 'createApiKey',
      summary: 'Create an API key on the calling key\'s network, holding no more than the calling key',
      method: 'post',
      path: '/',
      access: scope('api_keys:write'),
      request: { body: createBody },
      responses: { 201: { description: 'The key and its secret (shown once)', schema: createdApiKeySchema } },
      errors: ['UNPROCESSABLE'],
      handle: (deps) => async (req, res) => {
        const body = parse(createBody, req.body);
        const { key, secret } = await deps.create.execute(principalOf(res), {
          label: body.label,
          scopes: body.scopes,
          permission: body.permission ?? undefined,
          allowedIps: body.allowed_ips ?? undefined,
          expiresAt: body.expires_at ? new Date(body.expires_at) : undefined,
        });
        const view: z.infer<typeof createdApiKeySchema> = { ...presentApiKey(key), secret };
        res.status(201).json(view);
      },
    },
    {
      operationId: 'listApiKeys',
      summary: 'List the active keys of the workspace on the calling key\'s network, newest first',
      method: 'get',
      path: '/',
      access: scope('api_keys:read'),
      request: { query: pageQuery },
      responses: { 200: { description: 'A page of keys', schema: pageOf(apiKeySchema) } },
      errors: [],
      handle: (deps) => async (req, res) => {
        const page = parse(pageQuery, req.query);
        res.json(mapPage(await deps.list.execute(principalOf(res), page), presentApiKey));
      },
    },
    {
      operationId: 'revokeApiKey',
      summary: 'Revoke a key: refused from the next request on',
      method: 'delete',
      path: '/:id',
      access: scope('api_keys:write'),
      request: { params: idParams },
      responses: { 200: { description: 'Revoked', schema: messageSchema } },
      errors: ['NOT_FOUND'],
      handle: (deps) => async (req, res) => {
        await deps.revoke.execute(principalOf(res), String(req.params.id));
        const view: z.infer<typeof messageSchema> = { message: 'API key revoked' };
        res.json(view);
      },
    },
  ],
};
