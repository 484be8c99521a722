// The balance and fee quote methods of WalletClient over a real HTTP socket:
// the method, path, query string and body bytes each sends, that a quote
// carries no Idempotency-Key and is still retried, and that amounts come back
// as the exact strings the server sent.
import { describe, expect, it } from 'vitest';
import {
  ApiServerError,
  InvalidRequestError,
  type QuoteFeeParams,
} from '../../../src/sdk/index.js';
import { routes, type Received } from './fake-wallet-api.js';
import { failureOf, withApi } from './sdk-harness.js';


const BALANCES = {
  data: [
    { chain: 'ETH_TESTNET', asset: 'USDC_ETH', available: '1250.500000', locked: '100.000000', total: '1350.500000' },
    // 18 places: beyond what a JavaScript number holds exactly.
    { chain: 'ETH_TESTNET', asset: 'ETH', available: '9007199254.740993000000000001', locked: '0.000000000000000000', total: '9007199254.740993000000000001' },
  ],
};

const DEPOSIT_QUOTE = {
  direction: 'deposit',
  chain: 'ETH_TESTNET',
  asset: 'USDC_ETH',
  mode: 'charge',
  fee_basis: 'gross',
  amount: '100.000000',
  gross: '100.000000',
  net: '97.000000',
  fee: '3.000000',
  effective_rate: '0.030000',
  applied_rate: '0.009000',
  min_fee: '3.000000',
  rule: 'MIN_FEE',
  override_applied: false,
  tier: 'STANDARD',
  viable: true,
  indicative: true,
  warnings: ['BELOW_SWEEP_MINIMUM', 'MIN_FEE_DOMINATES'],
};

const WITHDRAWAL_QUOTE = {
  direction: 'withdrawal',
  chain: 'TRON_TESTNET',
  asset: 'USDT_TRON',
  mode: 'gross_up',
  fee_basis: 'net',
  amount: '1.000000',
  gross: '3.000000',
  net: '1.000000',
  fee: '2.000000',
  effective_rate: '0.666667',
  applied_rate: '0.000000',
  flat_fee: '2.000000',
  rule: 'FLAT',
  override_applied: false,
  tier: 'STANDARD',
  viable: true,
  indicative: true,
  // A code and a field this SDK does not know yet: the object is open.
  warnings: ['SOME_FUTURE_WARNING'],
  valid_until: '2026-01-01T00:05:00.000Z',
};

/** A quote as it must arrive: POST, signed JSON, no Idempotency-Key. */
function expectQuoteRequest(r: Received): void {
  expect(r.method).toBe('POST');
  expect(r.target).toBe('/v2/fees/quote');
  expect(r.signatureValid).toBe(true);
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers['idempotency-key']).toBeUndefined();
}

describe.concurrent('WalletClient balances', () => {
  it('getBalances sends the filters given in a fixed order, leaves out undefined ones, and keeps amounts as sent', async () => {
    await withApi(routes({ 'GET /v2/balances': { status: 200, body: BALANCES } }), async (client, api) => {
      const balances = await client.getBalances();
      expect(balances).toEqual(BALANCES);
      expect(balances.data[1]!.available).toBe('9007199254.740993000000000001');
      expect(balances.lastResponse.status).toBe(200);
      await client.getBalances({ asset: 'USDC_ETH', chain: 'ETH' });
      await client.getBalances({ chain: 'ETH_TESTNET', asset: undefined });
      await client.getBalances({ chain: undefined, asset: 'BNB' });
      expect(api.received.map((r) => r.target)).toEqual([
        '/v2/balances',
        '/v2/balances?chain=ETH&asset=USDC_ETH',
        '/v2/balances?chain=ETH_TESTNET',
        '/v2/balances?asset=BNB',
      ]);
      for (const r of api.received) {
        expect(r.method).toBe('GET');
        expect(r.signatureValid).toBe(true);
        expect(r.body.length).toBe(0);
        expect(r.headers['content-type']).toBeUndefined();
        expect(r.headers['idempotency-key']).toBeUndefined();
      }
    });
  });
});

describe.concurrent('WalletClient fee quotes', () => {
  it('quoteFee posts the fields in a fixed order, mode only when given, without an Idempotency-Key', async () => {
    await withApi(
      routes({ 'POST /v2/fees/quote': (r) => ({ status: 200, body: r.body.includes('"withdrawal"') ? WITHDRAWAL_QUOTE : DEPOSIT_QUOTE }) }),
      async (client, api) => {
        const deposit = await client.quoteFee({ amount: '100', asset: 'USDC_ETH', chain: 'ETH', direction: 'deposit' });
        expect(deposit).toEqual(DEPOSIT_QUOTE);
        expect(deposit.lastResponse.idempotencyKey).toBeNull();
        const params: QuoteFeeParams = { direction: 'withdrawal', chain: 'TRON', asset: 'USDT_TRON', amount: '1.000000', mode: 'gross_up' };
        const withdrawal = await client.quoteFee(params);
        expect(withdrawal).toEqual(WITHDRAWAL_QUOTE);
        expect(withdrawal.warnings).toEqual(['SOME_FUTURE_WARNING']);
        expect(withdrawal.flat_fee).toBe('2.000000');
        expect(withdrawal.min_fee).toBeUndefined();
        // The same quote again is a fresh request, not a replay.
        await client.quoteFee(params);
        const [first, second, third] = api.received;
        expect(first!.body.toString('utf8')).toBe('{"direction":"deposit","chain":"ETH","asset":"USDC_ETH","amount":"100"}');
        expect(second!.body.toString('utf8')).toBe(
          '{"direction":"withdrawal","chain":"TRON","asset":"USDT_TRON","amount":"1.000000","mode":"gross_up"}',
        );
        expect(third!.body.equals(second!.body)).toBe(true);
        api.received.forEach(expectQuoteRequest);
      },
    );
  });

  it('reports an amount too small as a viable-false quote with net null, not as an error', async () => {
    const tooSmall = { ...DEPOSIT_QUOTE, amount: '0.500000', gross: '0.500000', net: null, fee: '3.000000', viable: false, warnings: ['AMOUNT_TOO_SMALL'] };
    await withApi(routes({ 'POST /v2/fees/quote': { status: 200, body: tooSmall } }), async (client) => {
      const quote = await client.quoteFee({ direction: 'deposit', chain: 'ETH', asset: 'USDC_ETH', amount: '0.5' });
      expect(quote.viable).toBe(false);
      expect(quote.net).toBeNull();
      expect(quote.warnings).toEqual(['AMOUNT_TOO_SMALL']);
    });
  });

  it('retries a quote after a 503 and after a lost connection, each time with the same bytes and no Idempotency-Key', async () => {
    await withApi(
      routes({
        'POST /v2/fees/quote': (_r, i) =>
          i === 0 ? { status: 503, body: { error: 'down', code: 'DATABASE_ERROR' } } : i === 1 ? 'drop' : { status: 200, body: DEPOSIT_QUOTE },
      }),
      async (client, api) => {
        const quote = await client.quoteFee({ direction: 'deposit', chain: 'ETH', asset: 'USDC_ETH', amount: '100.000000', mode: 'charge' });
        expect(quote).toEqual(DEPOSIT_QUOTE);
        expect(quote.lastResponse.attempts).toBe(3);
        expect(api.received).toHaveLength(3);
        api.received.forEach(expectQuoteRequest);
        expect(new Set(api.received.map((r) => r.body.toString('utf8')))).toEqual(
          new Set(['{"direction":"deposit","chain":"ETH","asset":"USDC_ETH","amount":"100.000000","mode":"charge"}']),
        );
        const timestamps = api.received.map((r) => Number(r.headers['x-service-timestamp']));
        expect(timestamps[1]).toBeGreaterThan(timestamps[0]!);
        expect(timestamps[2]).toBeGreaterThan(timestamps[1]!);
      },
    );
  });

  it('gives up on a quote after maxRetries 5xx, and never retries a validation error', async () => {
    await withApi(
      routes({
        'POST /v2/fees/quote': (r) =>
          r.body.includes('"BNB"')
            ? { status: 400, body: { error: 'BNB is not an asset of TRON', code: 'VALIDATION_ERROR' } }
            : { status: 500, body: { error: 'boom', code: 'INTERNAL_ERROR' } },
      }),
      async (client, api) => {
        const server = await failureOf(client.quoteFee({ direction: 'deposit', chain: 'ETH', asset: 'ETH', amount: '0.01' }));
        expect(server).toBeInstanceOf(ApiServerError);
        expect(server.idempotencyKey).toBeNull();
        expect(api.received).toHaveLength(3);
        const invalid = await failureOf(client.quoteFee({ direction: 'deposit', chain: 'TRON', asset: 'BNB', amount: '1' }));
        expect(invalid).toBeInstanceOf(InvalidRequestError);
        expect(invalid.code).toBe('VALIDATION_ERROR');
        expect(api.received).toHaveLength(4);
      },
    );
  });
});
