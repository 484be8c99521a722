// The SDK's typed errors against the API's error catalogue (docs/errors.md is
// generated from it): every code is known to the SDK, and every status the
// catalogue gives a code raises its own class. A 503's Retry-After is waited out.
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../src/domain/error-catalogue.js';
import { errorFromResponse } from '../../../src/sdk/errors.js';
import {
  API_ERROR_CODES,
  ApiServerError,
  AuthenticationError,
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  SDK_VERSION,
  UnprocessableError,
  type ApiErrorCode,
} from '../../../src/sdk/index.js';
import { failureOf, withApi } from './sdk-harness.js';

const CLASS_BY_STATUS: Record<number, new (...args: never[]) => Error> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  413: InvalidRequestError,
  415: InvalidRequestError,
  422: UnprocessableError,
  429: RateLimitError,
  500: ApiServerError,
  503: ApiServerError,
};

describe('typed errors', () => {
  it('know every code of the catalogue and of docs/errors.md, and no other', () => {
    expect([...API_ERROR_CODES].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
    const documented = [...readFileSync('docs/errors.md', 'utf8').matchAll(/^\| `([A-Z_]+)` \| \d{3} \|/gm)].map((m) => m[1]);
    expect([...API_ERROR_CODES].sort()).toEqual(documented.sort());
    expectTypeOf<ApiErrorCode>().toEqualTypeOf<ErrorCode>();
  });

  it('raise one class per status for every code', () => {
    for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
      const err = errorFromResponse(status, { error: 'x', code }, new Headers({ 'x-request-id': 'req_1' }), null);
      expect(err, code).toBeInstanceOf(CLASS_BY_STATUS[status]!);
      expect(err).toMatchObject({ status, code, requestId: 'req_1' });
    }
  });

  it('raise InvalidRequestError for the statuses the HTTP server answers before any route (408, 417, 431)', () => {
    for (const [status, code] of [[408, 'VALIDATION_ERROR'], [417, 'VALIDATION_ERROR'], [431, 'PAYLOAD_TOO_LARGE']] as const) {
      expect(errorFromResponse(status, { error: 'x', code }, new Headers(), null)).toBeInstanceOf(InvalidRequestError);
    }
  });

  it('wait out the Retry-After of a 503 SERVICE_UNAVAILABLE before the retry', async () => {
    await withApi(
      (_r, i) => (i === 0 ? { status: 503, body: { error: 'keys being prepared', code: 'SERVICE_UNAVAILABLE' }, headers: { 'Retry-After': '2' } } : { status: 200, body: { data: [] } }),
      async (client, api) => {
        const started = Date.now();
        expect((await client.listChains()).lastResponse.attempts).toBe(2);
        expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
        expect(api.received).toHaveLength(2);
      },
    );
  });

  it('hand a 503 whose Retry-After is beyond maxRetryAfterSeconds to the caller at once, with the wait', async () => {
    await withApi(
      () => ({ status: 503, body: { error: 'down', code: 'SERVICE_UNAVAILABLE' }, headers: { 'Retry-After': '90' } }),
      async (client, api) => {
        const err = await failureOf(client.listChains());
        expect(err).toBeInstanceOf(ApiServerError);
        expect((err as ApiServerError).retryAfterSeconds).toBe(90);
        expect(api.received).toHaveLength(1);
      },
    );
  });

  it('report the version of the package in SDK_VERSION', () => {
    expect(SDK_VERSION).toBe((JSON.parse(readFileSync('sdk/package.json', 'utf8')) as { version: string }).version);
  });
});
