// Hostile input at every /v2 endpoint, generated (fast-check): bodies of any
// JSON shape (wrong types, huge, negative and exponent amounts, unicode and
// control characters, deep nesting, duplicate keys, 64 KiB and more), bad
// path ids and bad pagination. No answer is a 5xx, each is documented (the
// harness checks every answer against the OpenAPI document), and a refused
// request writes nothing: the tables a create would write hold the same rows
// after it. (A generated body that happens to be valid may succeed.)
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'fuzz', env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '1000000' } });
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
let n = 0;

/** What a request could have written. */
const TABLES = ['customers', 'wallets', 'withdrawals', 'webhook_endpoints', 'api_keys', 'faucet_drips', 'journal_entries', 'idempotency_keys', 'webhook_events'];
async function rows(): Promise<Record<string, number>> {
  const conn = t.api.infra.orm.em.getConnection();
  // One statement for every table: one snapshot, one round trip.
  const [counts] = await conn.execute<Record<string, number>[]>(`select ${TABLES.map((table) => `(select count(*)::int from ${table}) as ${table}`).join(', ')}`);
  return { ...counts! };
}

const amountish = fc.oneof(
  fc.constantFrom('-1', '0', '1e3', '1E-7', '0x10', 'NaN', 'Infinity', '１２', '1,000', ' 5', '5 ', '.5', '5.', '00.1', '9'.repeat(80), '1.0000000000000000001'),
  fc.double(),
  fc.bigInt().map((b) => b.toString()),
);
const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.constantFrom('\u0000', '\u202e', '𝕏'.repeat(40), "'; drop table wallets; --", '../../etc/passwd', '%00', '{{7*7}}', '<script>', 'ETH\n', 'null'),
  fc.string({ maxLength: 5000 }),
);
/** Any JSON value, with the fields the endpoints know given hostile values. */
const hostileBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record(
    {
      chain: fc.oneof(hostileString, fc.constantFrom('ETH', 'TRON', 'BSC', 'eth', 'ETH_MAINNET'), fc.integer()),
      asset: fc.oneof(hostileString, fc.constantFrom('USDT_ETH', 'ETH', 'usdt_eth'), fc.integer()),
      amount: amountish,
      address: hostileString,
      destination_address: hostileString,
      url: fc.oneof(hostileString, fc.webUrl(), fc.constantFrom('http://169.254.169.254/latest/meta-data', 'http://[::1]/', 'file:///etc/passwd')),
      events: fc.oneof(fc.array(hostileString, { maxLength: 5 }), hostileString),
      scopes: fc.oneof(fc.array(hostileString, { maxLength: 5 }), hostileString),
      assets: fc.oneof(fc.array(fc.record({ symbol: fc.oneof(hostileString, fc.constantFrom('USDT_ETH', 'ETH')), amount: amountish }), { maxLength: 8 }), hostileString),
      metadata: fc.jsonValue({ maxDepth: 3 }),
      external_ref: fc.oneof(hostileString, fc.integer()),
      customer_id: fc.oneof(hostileString, fc.uuid()),
      label: hostileString,
      direction: fc.oneof(hostileString, fc.constantFrom('deposit', 'withdrawal')),
      mode: hostileString,
      idempotency_key: fc.oneof(hostileString, fc.integer()),
      __proto__: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  ),
);
const rawBody = fc.oneof(
  hostileBody.map((b) => JSON.stringify(b)),
  fc.constantFrom('{"chain":"ETH","chain":"TRON"}', '{"a":', '[1,2', '"', 'nul', '{}'.padEnd(70 * 1024, ' '), `{"x":"${'a'.repeat(70 * 1024)}"}`, '['.repeat(5000) + ']'.repeat(5000)),
);
const badId = fc.oneof(fc.uuid(), fc.constantFrom('not-a-uuid', '00000000-0000-0000-0000-000000000000', '%2e%2e', "1' or '1'='1", 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'a'.repeat(500)));
const badQuery = fc.record(
  { page: fc.oneof(fc.integer(), hostileString), limit: fc.oneof(fc.integer(), hostileString), status: hostileString, chain: hostileString, wallet_id: badId },
  { requiredKeys: [] },
);

describe('fuzzing every endpoint', () => {
  it(`answers ${RUNS} hostile requests per endpoint without a 5xx, a refusal writing nothing`, async () => {
    let refused = 0;
    for (const route of t.api.routes) {
      await fc.assert(
        fc.asyncProperty(rawBody, badId, badId, badQuery, async (body, id, other, query) => {
          const path = route.path.replace(':id', encodeURIComponent(id)).replace(':delivery_id', encodeURIComponent(other)).replace(':drip_id', encodeURIComponent(id));
          const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
          qs.set('fuzz', String(++n));
          const before = await rows();
          const res = await call(t.api.baseUrl, t.ws.testKey, {
            method: route.method.toUpperCase(),
            path: `${path}?${qs.toString()}`,
            body: route.method === 'get' || route.method === 'delete' ? undefined : body,
          });
          const what = `${route.method} ${route.path} ${body.slice(0, 200)} → ${res.status} ${res.text.slice(0, 200)}`;
          expect(res.status, what).toBeLessThan(500);
          if (res.status >= 400) {
            refused++;
            expect(await rows(), what).toEqual(before);
          }
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    }
    // Nearly everything generated is refused; the property above holds for each.
    expect(refused).toBeGreaterThan(t.api.routes.length * RUNS * 0.8);
  }, 600_000);

  it('answers hostile headers (ids, keys, timestamps, idempotency keys, content types) without a 5xx', async () => {
    const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          'X-Request-Id': headerValue,
          'Idempotency-Key': headerValue,
          'Content-Type': fc.oneof(headerValue, fc.constantFrom('application/json; charset=utf-16', 'application/json;;', 'text/plain', 'multipart/form-data; boundary=x')),
          'X-Service-Timestamp': fc.oneof(headerValue, fc.constantFrom('-1', '1e10', '9'.repeat(40), '0x10')),
        }, { requiredKeys: [] }),
        fc.constantFrom('/v2/customers', '/v2/wallets', '/v2/withdrawals', '/v2/sandbox/faucet'),
        async (headers, path) => {
          const before = await rows();
          const res = await call(t.api.baseUrl, t.ws.testKey, { method: 'POST', path: `${path}?fuzz=${++n}`, body: '{"chain":"ETH"}', headers });
          expect(res.status, JSON.stringify(headers)).toBeLessThan(500);
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(await rows()).toEqual(before);
        },
      ),
      { numRuns: RUNS * 5, endOnFailure: true },
    );
  }, 300_000);
});
