// One source of truth: the OpenAPI document is generated from the route
// declarations, served unsigned, committed byte for byte, valid OpenAPI 3.1,
// and it matches the routes express really serves, both ways.
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Express } from 'express';
import { describe, expect, it } from 'vitest';
import { errorsMarkdown } from '../../src/adapters/http/errors-doc.js';
import { OPENAPI_PATH, openApiJson, openApiPath } from '../../src/adapters/http/openapi.js';
import { ResponseMismatch, checkResponse, openApiAjv } from '../support/openapi-check.js';
import { useTestApi } from '../support/harness.js';

const t = useTestApi();

interface Layer {
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

/** Every route express serves, as "METHOD /path", found by walking its routers. */
function mountedRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const path = `${prefix}${layer.route.path === '/' ? '' : layer.route.path}` || '/';
        for (const method of Object.keys(layer.route.methods)) found.push(`${method.toUpperCase()} ${path}`);
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, `${prefix}${typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : ''}`);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return found;
}

describe('the OpenAPI document', () => {
  it('is served without a signature at GET /v2/openapi.json, as the committed docs/openapi.json, byte for byte', async () => {
    const res = await fetch(`${t.api.baseUrl}${OPENAPI_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const served = await res.text();
    expect(served).toBe(openApiJson());
    expect(readFileSync('docs/openapi.json', 'utf8')).toBe(served);
  });

  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(JSON.parse(openApiJson()));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(JSON.parse(openApiJson()).openapi).toBe('3.1.0');
  });

  it('names every route express serves, and no route express does not serve', () => {
    const document = JSON.parse(openApiJson()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    const served = mountedRoutes(t.api.app)
      .filter((r) => r.split(' ')[1]!.startsWith('/v2'))
      .map((r) => {
        const [method, path] = r.split(' ');
        return `${method} ${openApiPath(path!)}`;
      });
    expect(served.sort()).toEqual(documented.sort());
    expect(served.length).toBeGreaterThanOrEqual(15);
  });

  it('publishes responses open to added fields (clients must tolerate them) and request bodies closed (unknown fields are refused)', () => {
    const document = JSON.parse(openApiJson()) as {
      components: { schemas: Record<string, { additionalProperties?: unknown }> };
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { additionalProperties?: unknown } }> } }>>;
    };
    for (const name of ['Customer', 'Wallet', 'ApiKey', 'FeeQuote']) expect(document.components.schemas[name]!.additionalProperties, name).toBeUndefined();
    expect(document.paths['/v2/customers']!.post!.requestBody!.content['application/json']!.schema.additionalProperties).toBe(false);
  });

  it('states the scope of every signed operation and the signing scheme', () => {
    const document = JSON.parse(openApiJson()) as {
      paths: Record<string, Record<string, { 'x-required-scope'?: string; security?: unknown[] }>>;
      components: { securitySchemes: Record<string, { name: string }> };
    };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (path === OPENAPI_PATH) expect(op.security).toEqual([]);
        else expect(op['x-required-scope'], `${method} ${path}`).toBeTruthy();
      }
    }
    expect(Object.values(document.components.securitySchemes).map((s) => s.name).sort()).toEqual([
      'X-Service-Key',
      'X-Service-Signature',
      'X-Service-Timestamp',
    ]);
  });
});

describe('what the reference page shows', () => {
  const document = JSON.parse(openApiJson()) as {
    info: { contact?: { name?: string }; license?: { name?: string } };
    servers: { url: string }[];
    tags: { name: string; description?: string }[];
    paths: Record<string, Record<string, { tags?: string[] }>>;
    webhooks: Record<string, Record<string, { tags?: string[] }>>;
  };

  it('lists every tag an operation or event carries, once, each with a description', () => {
    const listed = document.tags.map((t) => t.name);
    expect(new Set(listed).size).toBe(listed.length);
    for (const tag of document.tags) expect(tag.description, tag.name).toBeTruthy();
    const used = [...Object.values(document.paths), ...Object.values(document.webhooks)].flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? []));
    expect(used.length).toBeGreaterThan(0);
    for (const tag of used) expect(listed, tag).toContain(tag);
    // And no tag groups nothing.
    expect([...new Set(used)].sort()).toEqual([...listed].sort());
  });

  it('names whom to contact and the licence, and a relative server so requests go to the origin that served the page', () => {
    expect(document.info.contact?.name).toBeTruthy();
    expect(document.info.license).toEqual({ name: 'Proprietary' });
    expect(document.servers).toHaveLength(1);
    // The paths carry /v2 themselves: the server is the root of the page's own origin, never a host.
    expect(document.servers[0]!.url).toBe('/');
    for (const path of Object.keys(document.paths)) expect(path).toMatch(/^\/v2\//);
  });
});

describe('examples', () => {
  it('illustrate the main schemas with real responses, each valid against its schema', () => {
    const document = JSON.parse(openApiJson()) as { components: { schemas: Record<string, { examples?: unknown[] }> } };
    const ajv = openApiAjv();
    ajv.addSchema(document, 'doc');
    const illustrated = Object.entries(document.components.schemas).filter(([, s]) => s.examples?.length);
    expect(illustrated.map(([name]) => name).sort()).toEqual(['ApiKey', 'Balance', 'Chain', 'CreatedApiKey', 'Customer', 'Deposit', 'FeeQuote', 'Wallet', 'WalletDetail']);
    for (const [name, schema] of illustrated) {
      const validate = ajv.compile({ $ref: `doc#/components/schemas/${name}` });
      for (const example of schema.examples!) expect(validate(example), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });
});

describe('responses are checked against the document', () => {
  const customer = {
    id: '3f1b1a52-9c7e-4d51-8f0e-2a57b8c1d9e4',
    external_ref: 'user-1',
    label: null,
    metadata: null,
    status: 'ACTIVE',
    created_at: '2026-11-23T10:00:00.000Z',
    updated_at: '2026-11-23T10:00:00.000Z',
  };

  it('accepts a response as documented', () => {
    expect(() => checkResponse('GET', `/v2/customers/${customer.id}`, 200, customer)).not.toThrow();
    expect(() => checkResponse('GET', '/v2/no-such-route', 404, { error: 'No such route', code: 'NOT_FOUND' })).not.toThrow();
  });

  it('refuses a presenter that drops, adds or retypes a field, a status the route does not document, and a code it may not answer', () => {
    const { status: _s, ...dropped } = customer;
    for (const [status, body] of [
      [200, dropped],
      [200, { ...customer, extra: 1 }],
      [200, { ...customer, created_at: 1700000000 }],
      [204, null],
      [409, { error: 'x', code: 'CONFLICT' }],
      [401, { error: 'x', code: 'NOT_A_CODE' }],
    ] as const) {
      expect(() => checkResponse('GET', `/v2/customers/${customer.id}`, status, body), JSON.stringify(body)).toThrow(ResponseMismatch);
    }
  });
});

describe('the error catalogue', () => {
  /** Every code the API names, with its status. */
  const CONTRACT: Record<string, number> = {
    VALIDATION_ERROR: 400, INVALID_JSON: 400, IDEMPOTENCY_KEY_INVALID: 400, INVALID_DESTINATION_ADDRESS: 400,
    FAUCET_INVALID_ASSET: 400, FAUCET_INVALID_AMOUNT: 400, FAUCET_NO_ASSETS: 400,
    MISSING_AUTH_HEADERS: 401, TIMESTAMP_EXPIRED: 401, INVALID_SIGNATURE: 401, REPLAY_DETECTED: 401, INVALID_API_KEY: 401,
    API_KEY_EXPIRED: 401, UNAUTHORIZED: 401, WORKSPACE_NOT_FOUND: 401,
    INSUFFICIENT_SCOPE: 403, IP_NOT_ALLOWED: 403, FORBIDDEN: 403, WORKSPACE_INACTIVE: 403, FAUCET_ONLY_SANDBOX: 403,
    FAUCET_NOT_SANDBOX: 403, FEATURE_NOT_AVAILABLE: 403, SYSTEM_WORKSPACE_PROTECTED: 403,
    NOT_FOUND: 404, CONFLICT: 409, IDEMPOTENCY_CONFLICT: 409, PAYLOAD_TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415,
    UNPROCESSABLE: 422, INSUFFICIENT_BALANCE: 422, CHAIN_NOT_ENABLED: 422, DESTINATION_IS_INTERNAL: 422, WITHDRAWALS_FROZEN: 422,
    IDEMPOTENCY_MISMATCH: 422, WITHDRAWAL_NOT_CANCELLABLE: 422, AMOUNT_TOO_SMALL: 422, WITHDRAWAL_POLICY_VIOLATION: 422,
    WEBHOOK_LIMIT_REACHED: 422, FAUCET_ADDRESS_NOT_FOUND: 422, FAUCET_AMOUNT_OVER_CAP: 422, FAUCET_TOO_MANY_ITEMS: 422,
    FAUCET_DUPLICATE_ASSET: 422, FAUCET_NATIVE_REQUIRES_DEPOSIT: 422, FAUCET_NATIVE_BUDGET_EXCEEDED: 422, FAUCET_RATE_LIMITED: 422,
    FAUCET_DISPENSER_EXHAUSTED: 422,
    RATE_LIMITED: 429, INTERNAL_ERROR: 500, DATABASE_ERROR: 503,
  };

  it('has every code of the API with its status, and docs/errors.md is generated from it', () => {
    const committed = readFileSync('docs/errors.md', 'utf8');
    expect(committed).toBe(errorsMarkdown());
    for (const [code, status] of Object.entries(CONTRACT)) {
      expect(committed, code).toMatch(new RegExp(`^\\| \`${code}\` \\| ${status} \\|`, 'm'));
    }
  });
});
