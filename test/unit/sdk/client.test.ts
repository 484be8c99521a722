import { inspect } from 'node:util';
// WalletClient over a real HTTP socket: what it signs and sends, which
// failures it retries and how, and the errors it raises.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiServerError,
  ApiTimeoutError,
  AuthenticationError,
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  UnprocessableError,
  WalletApiError,
  WalletClient,
} from '../../../src/sdk/index.js';
import type { Reply } from './fake-wallet-api.js';
import { CUSTOMER, KEY_ID, SECRET, failureOf, withApi } from './sdk-harness.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const API_KEY = {
  id: '0b8e4c1e-5b7f-4f43-9a1c-2d3e4f5a6b7c',
  label: 'reporting',
  key_id: 'sk_test_abc',
  scopes: ['wallets:read'],
  permission: null,
  allowed_ips: [],
  is_test: true,
  last_used_at: null,
  expires_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
};

const error = (status: number, code: string, headers?: Record<string, string>): Reply => ({
  status,
  body: { error: `failed with ${code}`, code, ...(code === 'VALIDATION_ERROR' ? { details: [{ path: 'label', message: 'Required' }] } : {}) },
  headers,
});

/** Waits for a condition the server side reaches (no fixed sleeps: the machine may be busy). */
const until = async (done: () => boolean): Promise<void> => {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
};

// Concurrent: each test has its own server, and retries wait for a new clock second.
describe.concurrent('WalletClient', () => {
  it('sends exactly the bytes it signed, with the server-side signature check passing', async () => {
    const params = { label: 'Café – 東京', scopes: ['wallets:read' as const], allowed_ips: ['10.0.0.0/8'] };
    await withApi(
      () => ({ status: 201, body: { ...API_KEY, secret: 's3cr3t' } }),
      async (client, api) => {
        const before = Math.floor(Date.now() / 1000);
        const key = await client.createApiKey(params);
        expect(key.secret).toBe('s3cr3t');
        const [sent] = api.received;
        expect(sent!.method).toBe('POST');
        expect(sent!.target).toBe('/v2/api-keys');
        expect(sent!.body.equals(Buffer.from(JSON.stringify(params), 'utf8'))).toBe(true);
        expect(sent!.signatureValid).toBe(true);
        expect(sent!.headers['x-service-key']).toBe(KEY_ID);
        expect(Number(sent!.headers['x-service-timestamp'])).toBeGreaterThanOrEqual(before);
        expect(sent!.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
        expect(sent!.headers['content-type']).toBe('application/json');
      },
    );
  });

  it('never shows its secret when printed or serialised', () => {
    const client = new WalletClient({ baseUrl: 'http://127.0.0.1:1', keyId: KEY_ID, secret: SECRET });
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(SECRET);
    expect(JSON.stringify(client)).not.toContain(SECRET);
  });

  it('creates an API key without an Idempotency-Key and never repeats it when the outcome is unknown', async () => {
    await withApi(
      (_r, i) => (i === 0 ? error(503, 'DATABASE_ERROR') : 'drop'),
      async (client, api) => {
        // The secret is shown once and the server keeps no replay of it: a repeat could only mint a second key.
        expect(await failureOf(client.createApiKey({ label: 'a', scopes: ['wallets:read'] }))).toBeInstanceOf(ApiServerError);
        expect(await failureOf(client.createApiKey({ label: 'b', scopes: ['wallets:read'] }))).toBeInstanceOf(ApiConnectionError);
        expect(api.received.map((r) => r.headers['idempotency-key'])).toEqual([undefined, undefined]);
      },
    );
  });

  it('signs the query string it sends and sends no Content-Type without a body', async () => {
    await withApi(
      () => ({ status: 200, body: { total: 1, page: 2, limit: 1, data: [API_KEY] } }),
      async (client, api) => {
        const page = await client.listApiKeys({ page: 2, limit: 1 });
        expect(page).toEqual({ total: 1, page: 2, limit: 1, data: [API_KEY] });
        await client.listApiKeys({ limit: 5 });
        await client.listChains();
        expect(api.received.map((r) => r.target)).toEqual(['/v2/api-keys?page=2&limit=1', '/v2/api-keys?limit=5', '/v2/chains']);
        for (const r of api.received) {
          expect(r.signatureValid).toBe(true);
          expect(r.body.length).toBe(0);
          expect(r.headers['content-type']).toBeUndefined();
          expect(r.headers['idempotency-key']).toBeUndefined();
        }
      },
    );
  });

  it('keeps a path prefix of baseUrl in what it sends and signs, and encodes ids', async () => {
    await withApi(
      () => ({ status: 200, body: { message: 'API key revoked' } }),
      async (_client, api) => {
        const client = new WalletClient({ baseUrl: `${api.baseUrl}/wallet/`, keyId: KEY_ID, secret: SECRET });
        expect(await client.revokeApiKey('a/b c')).toEqual({ message: 'API key revoked' });
        const [sent] = api.received;
        expect(sent!.method).toBe('DELETE');
        expect(sent!.target).toBe('/wallet/v2/api-keys/a%2Fb%20c');
        expect(sent!.signatureValid).toBe(true);
      },
    );
  });

  it('takes the base URL with or without /v2, as the sandbox banner prints it', async () => {
    await withApi(
      () => ({ status: 200, body: { data: [] } }),
      async (_client, api) => {
        for (const baseUrl of [`${api.baseUrl}/v2`, `${api.baseUrl}/v2/`, api.baseUrl, `${api.baseUrl}/`]) {
          await new WalletClient({ baseUrl, keyId: KEY_ID, secret: SECRET }).listChains();
        }
        // (Four clients signing one target in one second may see a replay answered and retried: count targets, not requests.)
        expect(new Set(api.received.map((r) => `${r.target} ${r.signatureValid}`))).toEqual(new Set(['/v2/chains true']));
      },
    );
  });

  it('puts a fresh UUIDv4 Idempotency-Key on each create, or the caller’s own', async () => {
    await withApi(
      () => ({ status: 201, body: CUSTOMER }),
      async (client, api) => {
        const first = await client.createCustomer({ external_ref: 'user-1' });
        await client.createCustomer({ external_ref: 'user-1' });
        await client.createCustomer({ external_ref: 'user-1' }, { idempotencyKey: 'order-1234_retry' });
        const keys = api.received.map((r) => r.headers['idempotency-key']);
        expect(keys[0]).toMatch(UUID_V4);
        expect(keys[1]).toMatch(UUID_V4);
        expect(keys[1]).not.toBe(keys[0]);
        expect(keys[2]).toBe('order-1234_retry');
        expect(first.lastResponse.idempotencyKey).toBe(keys[0]);
      },
    );
  });

  it('retries a 503 with the same Idempotency-Key, each attempt re-signed in a later second', async () => {
    await withApi(
      (_r, i) => (i < 2 ? error(503, 'DATABASE_ERROR') : { status: 201, body: CUSTOMER }),
      async (client, api) => {
        const customer = await client.createCustomer({ external_ref: 'user-1' });
        expect(customer.id).toBe(CUSTOMER.id);
        expect(customer.lastResponse.attempts).toBe(3);
        expect(api.received).toHaveLength(3);
        const keys = new Set(api.received.map((r) => r.headers['idempotency-key']));
        expect(keys.size).toBe(1);
        expect([...keys][0]).toMatch(UUID_V4);
        const timestamps = api.received.map((r) => Number(r.headers['x-service-timestamp']));
        expect(timestamps[1]).toBeGreaterThan(timestamps[0]!);
        expect(timestamps[2]).toBeGreaterThan(timestamps[1]!);
        expect(api.received.every((r) => r.signatureValid)).toBe(true);
        expect(new Set(api.received.map((r) => r.body.toString())).size).toBe(1);
      },
    );
  });

  it('gives up after maxRetries with an ApiServerError', async () => {
    await withApi(
      () => error(500, 'INTERNAL_ERROR'),
      async (client, api) => {
        const err = await failureOf(client.listChains());
        expect(err).toBeInstanceOf(ApiServerError);
        expect(err.code).toBe('INTERNAL_ERROR');
        expect(api.received).toHaveLength(2);
      },
      { maxRetries: 1 },
    );
  });

  it('waits out Retry-After on a 429, then succeeds', async () => {
    await withApi(
      (_r, i) => (i === 0 ? error(429, 'RATE_LIMITED', { 'Retry-After': '1' }) : { status: 200, body: { data: [] } }),
      async (client, api) => {
        const started = Date.now();
        const chains = await client.listChains();
        expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
        expect(chains).toEqual({ data: [] });
        expect(api.received).toHaveLength(2);
      },
    );
  });

  it('raises RateLimitError with retryAfterSeconds when the wait is beyond maxRetryAfterSeconds', async () => {
    await withApi(
      () => error(429, 'RATE_LIMITED', { 'Retry-After': '120' }),
      async (client, api) => {
        const err = await failureOf(client.listChains());
        expect(err).toBeInstanceOf(RateLimitError);
        expect((err as RateLimitError).retryAfterSeconds).toBe(120);
        expect(api.received).toHaveLength(1);
      },
    );
  });

  it('retries a create whose key is still in flight and shows the replay in lastResponse', async () => {
    await withApi(
      (_r, i) =>
        i === 0
          ? error(409, 'IDEMPOTENCY_CONFLICT')
          : { status: 201, body: CUSTOMER, headers: { 'Idempotent-Replay': 'true' } },
      async (client, api) => {
        const customer = await client.createCustomer({ external_ref: 'user-1' }, { idempotencyKey: 'create-7' });
        expect(customer.lastResponse).toMatchObject({ status: 201, requestId: 'req_1', idempotentReplay: true, idempotencyKey: 'create-7', attempts: 2 });
        // lastResponse is there to read, not part of the resource.
        expect(Object.keys(customer)).not.toContain('lastResponse');
        expect(JSON.parse(JSON.stringify(customer))).toEqual(CUSTOMER);
        expect(api.received.map((r) => r.headers['idempotency-key'])).toEqual(['create-7', 'create-7']);
      },
    );
  });

  it('reports a first execution as no replay', async () => {
    await withApi(
      () => ({ status: 201, body: CUSTOMER }),
      async (client) => {
        const customer = await client.createCustomer({ external_ref: 'user-1' });
        expect(customer.lastResponse).toMatchObject({ status: 201, requestId: 'req_0', idempotentReplay: false, attempts: 1 });
      },
    );
  });

  it('never retries 400, 401, 403, 404, 409 CONFLICT, 413, 415 or 422, and raises one class per kind', async () => {
    const cases = [
      { status: 400, code: 'VALIDATION_ERROR', kind: InvalidRequestError },
      { status: 401, code: 'INVALID_SIGNATURE', kind: AuthenticationError },
      { status: 403, code: 'INSUFFICIENT_SCOPE', kind: PermissionError },
      { status: 404, code: 'NOT_FOUND', kind: NotFoundError },
      { status: 409, code: 'CONFLICT', kind: ConflictError },
      { status: 413, code: 'PAYLOAD_TOO_LARGE', kind: InvalidRequestError },
      { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', kind: InvalidRequestError },
      { status: 422, code: 'IDEMPOTENCY_MISMATCH', kind: UnprocessableError },
    ];
    for (const c of cases) {
      await withApi(
        () => error(c.status, c.code),
        async (client, api) => {
          const err = await failureOf(client.createCustomer({ external_ref: 'user-1' }, { idempotencyKey: 'k-1' }));
          expect(err).toBeInstanceOf(c.kind);
          expect(err).toBeInstanceOf(WalletApiError);
          expect(err).toMatchObject({ status: c.status, code: c.code, message: `failed with ${c.code}`, requestId: 'req_0', idempotencyKey: 'k-1' });
          expect(err.name).toBe(c.kind.name);
          expect(api.received).toHaveLength(1);
          if (c.code === 'VALIDATION_ERROR') expect(err.details).toEqual([{ path: 'label', message: 'Required' }]);
        },
      );
    }
  });

  it('does not retry a POST sent without an Idempotency-Key, on a 5xx or a lost connection', async () => {
    await withApi(
      (_r, i) => (i === 0 ? error(503, 'DATABASE_ERROR') : 'drop'),
      async (client, api) => {
        const first = await failureOf(client.request('POST', '/v2/withdrawals/w-1/cancel', { body: {} }));
        expect(first).toBeInstanceOf(ApiServerError);
        expect(first).toMatchObject({ status: 503, code: 'DATABASE_ERROR' });
        const second = await failureOf(client.request('POST', '/v2/withdrawals/w-1/cancel', { body: {} }));
        expect(second).toBeInstanceOf(ApiConnectionError);
        expect(api.received).toHaveLength(2);
        expect(api.received[0]!.headers['idempotency-key']).toBeUndefined();
      },
    );
  });

  it('retries a GET whose connection dropped', async () => {
    await withApi(
      (_r, i) => (i === 0 ? 'drop' : { status: 200, body: { data: [] } }),
      async (client, api) => {
        expect((await client.listChains()).lastResponse.attempts).toBe(2);
        expect(api.received).toHaveLength(2);
      },
    );
  });

  it('signs two identical requests issued together in different seconds, so neither is a replay', async () => {
    await withApi(
      () => ({ status: 200, body: { data: [] } }),
      async (client, api) => {
        const results = await Promise.all([client.listChains(), client.listChains()]);
        expect(results.map((r) => r.lastResponse.attempts)).toEqual([1, 1]);
        const [a, b] = api.received.map((r) => r.headers['x-service-signature']);
        expect(a).not.toBe(b);
      },
    );
  });

  it('raises ApiConnectionError when nothing answers on the port', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = new WalletClient({ baseUrl: `http://127.0.0.1:${port}`, keyId: KEY_ID, secret: SECRET, maxRetries: 0 });
    const err = await failureOf(client.listChains());
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err).toMatchObject({ status: null, code: 'CONNECTION_ERROR', requestId: null });
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('raises ApiTimeoutError when the answer takes longer than timeoutMs', async () => {
    await withApi(
      () => 'hang',
      async (client) => {
        const err = await failureOf(client.listChains());
        expect(err).toBeInstanceOf(ApiTimeoutError);
        expect(err).toBeInstanceOf(ApiConnectionError);
        expect(err.code).toBe('TIMEOUT');
      },
      { timeoutMs: 100, maxRetries: 0 },
    );
  });

  it('stops at once when the caller aborts, without retrying', async () => {
    await withApi(
      () => 'hang',
      async (client, api) => {
        const controller = new AbortController();
        const call = client.request('GET', '/v2/chains', { signal: controller.signal });
        await until(() => api.received.length === 1);
        controller.abort(new Error('caller gave up'));
        await expect(call).rejects.toThrow('caller gave up');
        expect(api.received).toHaveLength(1);
      },
    );
  });

  it('stops a wait between retries when the caller aborts', async () => {
    await withApi(
      () => error(503, 'DATABASE_ERROR'),
      async (client, api) => {
        const controller = new AbortController();
        const call = client.request('GET', '/v2/chains', { signal: controller.signal });
        await until(() => api.received.length === 1);
        await new Promise((r) => setTimeout(r, 100)); // the 503 is in; the client is waiting to retry
        controller.abort(new Error('shutting down'));
        await expect(call).rejects.toThrow('shutting down');
        expect(api.received).toHaveLength(1);
      },
      { retryBaseDelayMs: 5_000, retryMaxDelayMs: 5_000 },
    );
  });

  it('keeps a non-JSON error from a proxy as an error with its status', async () => {
    await withApi(
      () => ({ status: 502, body: '<html>Bad gateway</html>' }),
      async (client) => {
        const err = await failureOf(client.listChains());
        expect(err).toBeInstanceOf(ApiServerError);
        expect(err).toMatchObject({ status: 502, code: 'UNKNOWN_ERROR', requestId: 'req_0' });
      },
      { maxRetries: 0 },
    );
  });

  it('refuses a path that would leave the base URL', async () => {
    const client = new WalletClient({ baseUrl: 'http://127.0.0.1:1', keyId: KEY_ID, secret: SECRET });
    await expect(client.request('GET', '//evil.example/v2/chains')).rejects.toThrow(TypeError);
    await expect(client.request('GET', 'v2/chains')).rejects.toThrow(TypeError);
  });
});
