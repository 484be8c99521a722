// /v2/api-keys (docs/api.md#api-keys): create (secret shown once), list, revoke.
import { z } from 'zod';
import type { CreateApiKey } from '../../application/api-keys/create-api-key.js';
import type { ListApiKeys } from '../../application/api-keys/list-api-keys.js';
import type { RevokeApiKey } from '../../application/api-keys/revoke-api-key.js';
import type { ApiKey } from '../../domain/auth/api-key.js';
import { LEGACY_PERMISSIONS, SCOPES } from '../../domain/auth/scopes.js';
import { mapPage } from '../../domain/pagination.js';
import { principalOf } from './authenticate.js';
import { pageQuery } from './pagination.js';
import { parse } from './validation.js';
import type { RouteSpec } from './route.js';
import { scope } from '../../domain/auth/principal.js';

const createBody = z.strictObject({
  label: z.string().trim().min(1).max(255),
  scopes: z.array(z.enum(SCOPES)).max(SCOPES.length * 2).optional(),
  // null is accepted where the resource shows null (docs/api.md#api-keys): no permission, no restriction, no expiry.
  permission: z.enum(LEGACY_PERMISSIONS).nullable().optional(),
  allowed_ips: z.array(z.string().max(64)).max(100).nullable().optional(),
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
});

export const presentApiKey = (k: ApiKey) => ({
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

export function apiKeyRoutes(deps: { create: CreateApiKey; list: ListApiKeys; revoke: RevokeApiKey }): RouteSpec[] {
  return [
    {
      // Not idempotent (only withdrawals, wallets and customers are): a
      // replay would have to keep the secret, which is shown once and never
      // stored in clear. An Idempotency-Key header here is ignored.
      method: 'post',
      path: '/',
      access: scope('api_keys:write'),
      handler: async (req, res) => {
        const body = parse(createBody, req.body);
        const { key, secret } = await deps.create.execute(principalOf(res), {
          label: body.label,
          scopes: body.scopes,
          permission: body.permission ?? undefined,
          allowedIps: body.allowed_ips ?? undefined,
          expiresAt: body.expires_at ? new Date(body.expires_at) : undefined,
        });
        res.status(201).json({ ...presentApiKey(key), secret });
      },
    },
    {
      method: 'get',
      path: '/',
      access: scope('api_keys:read'),
      handler: async (req, res) => {
        const page = parse(pageQuery, req.query);
        res.json(mapPage(await deps.list.execute(principalOf(res), page), presentApiKey));
      },
    },
    {
      method: 'delete',
      path: '/:id',
      access: scope('api_keys:write'),
      handler: async (req, res) => {
        await deps.revoke.execute(principalOf(res), String(req.params.id));
        res.json({ message: 'API key revoked' });
      },
    },
  ];
}
