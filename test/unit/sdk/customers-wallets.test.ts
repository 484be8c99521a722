// The customer and wallet methods of WalletClient over a real HTTP socket:
// the method, path, query string and body bytes each sends, which carry an
// Idempotency-Key, and which are retried.
import { describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiServerError,
  type CreateCustomerParams,
  type CreateWalletParams,
  type UpdateCustomerParams,
} from '../../../src/sdk/index.js';
import { routes, type Received } from './fake-wallet-api.js';
import { CUSTOMER, failureOf, withApi } from './sdk-harness.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const WALLET = {
  id: '7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d',
  chain: 'ETH_TESTNET',
  asset: 'USDC_ETH',
  address: '0x52908400098527886E0F7030069857D2E4169EE7',
  status: 'ACTIVE',
  customer_id: CUSTOMER.id,
  created_at: '2026-01-01T00:00:00.000Z',
};

const jsonBytes = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

/** A request without a body: no bytes, no Content-Type, no Idempotency-Key. */
function expectBareRead(r: Received): void {
  expect(r.method).toBe('GET');
  expect(r.signatureValid).toBe(true);
  expect(r.body.length).toBe(0);
  expect(r.headers['content-type']).toBeUndefined();
  expect(r.headers['idempotency-key']).toBeUndefined();
}

describe.concurrent('WalletClient customers', () => {
  it('createCustomer posts exactly the given body, nulls included, with an Idempotency-Key', async () => {
    const params: CreateCustomerParams = { external_ref: 'user-42', label: null, metadata: { tier: 'gold', note: 'Café – 東京' } };
    await withApi(routes({ 'POST /v2/customers': { status: 201, body: CUSTOMER } }), async (client, api) => {
      const customer = await client.createCustomer(params);
      expect(customer).toEqual(CUSTOMER);
      await client.createCustomer({ external_ref: 'user-43' }, { idempotencyKey: 'customer-43' });
      const [first, second] = api.received;
      expect(first!.body.equals(jsonBytes(params))).toBe(true);
      expect(first!.headers['content-type']).toBe('application/json');
      expect(first!.headers['idempotency-key']).toMatch(UUID_V4);
      expect(customer.lastResponse.idempotencyKey).toBe(first!.headers['idempotency-key']);
      expect(second!.body.toString('utf8')).toBe('{"external_ref":"user-43"}');
      expect(second!.headers['idempotency-key']).toBe('customer-43');
      expect(api.received.every((r) => r.signatureValid)).toBe(true);
    });
  });

  it('listCustomers sends the filters given in a fixed order and leaves out undefined ones', async () => {
    const page = { total: 1, page: 2, limit: 50, data: [CUSTOMER] };
    await withApi(routes({ 'GET /v2/customers': { status: 200, body: page } }), async (client, api) => {
      expect(await client.listCustomers()).toEqual(page);
      await client.listCustomers({ external_ref: 'user 42/α', status: 'ARCHIVED', limit: 50, page: 2 });
      await client.listCustomers({ page: undefined, status: undefined, external_ref: 'user-42' });
      expect(api.received.map((r) => r.target)).toEqual([
        '/v2/customers',
        '/v2/customers?page=2&limit=50&status=ARCHIVED&external_ref=user+42%2F%CE%B1',
        '/v2/customers?external_ref=user-42',
      ]);
      api.received.forEach(expectBareRead);
    });
  });

  it('getCustomer reads the customer at its encoded id', async () => {
    await withApi(routes({ 'GET /v2/customers/a%2Fb%20c': { status: 200, body: CUSTOMER } }), async (client, api) => {
      expect(await client.getCustomer('a/b c')).toEqual(CUSTOMER);
      expect(api.received[0]!.target).toBe('/v2/customers/a%2Fb%20c');
      expectBareRead(api.received[0]!);
    });
  });

  it('updateCustomer sends a PATCH of the given fields, without an Idempotency-Key', async () => {
    const params: UpdateCustomerParams = { label: null, metadata: { tier: 'silver' }, status: 'ARCHIVED' };
    const updated = { ...CUSTOMER, metadata: { tier: 'silver' }, status: 'ARCHIVED' };
    await withApi(routes({ [`PATCH /v2/customers/${CUSTOMER.id}`]: { status: 200, body: updated } }), async (client, api) => {
      expect(await client.updateCustomer(CUSTOMER.id, params)).toEqual(updated);
      await client.updateCustomer(CUSTOMER.id, { label: 'VIP' });
      const [first, second] = api.received;
      expect(first!.target).toBe(`/v2/customers/${CUSTOMER.id}`);
      expect(first!.body.equals(jsonBytes(params))).toBe(true);
      expect(first!.headers['content-type']).toBe('application/json');
      expect(second!.body.toString('utf8')).toBe('{"label":"VIP"}');
      for (const r of api.received) {
        expect(r.signatureValid).toBe(true);
        expect(r.headers['idempotency-key']).toBeUndefined();
      }
    });
  });

  it('does not retry updateCustomer after a 5xx or a lost connection', async () => {
    await withApi(
      (_r, i) => (i === 0 ? { status: 503, body: { error: 'down', code: 'DATABASE_ERROR' } } : 'drop'),
      async (client, api) => {
        expect(await failureOf(client.updateCustomer(CUSTOMER.id, { label: 'a' }))).toBeInstanceOf(ApiServerError);
        expect(await failureOf(client.updateCustomer(CUSTOMER.id, { label: 'b' }))).toBeInstanceOf(ApiConnectionError);
        expect(api.received).toHaveLength(2);
      },
    );
  });
});

describe.concurrent('WalletClient wallets', () => {
  it('createWallet posts exactly the given body with an Idempotency-Key, the same on a retry', async () => {
    const params: CreateWalletParams = { chain: 'ETH', asset: 'USDC_ETH', external_ref: 'order-9', customer_id: CUSTOMER.id };
    await withApi(
      routes({ 'POST /v2/wallets': (_r, i) => (i === 0 ? 'drop' : { status: 201, body: WALLET }) }),
      async (client, api) => {
        const wallet = await client.createWallet(params);
        expect(wallet).toEqual(WALLET);
        expect(wallet.lastResponse.attempts).toBe(2);
        await client.createWallet({ chain: 'TRON', asset: 'USDT_TRON' }, { idempotencyKey: 'wallet-2' });
        const [first, retry, other] = api.received;
        expect(first!.target).toBe('/v2/wallets');
        expect(first!.body.equals(jsonBytes(params))).toBe(true);
        expect(retry!.body.equals(first!.body)).toBe(true);
        expect(first!.headers['content-type']).toBe('application/json');
        expect(first!.headers['idempotency-key']).toMatch(UUID_V4);
        expect(retry!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
        expect(other!.body.toString('utf8')).toBe('{"chain":"TRON","asset":"USDT_TRON"}');
        expect(other!.headers['idempotency-key']).toBe('wallet-2');
        expect(api.received.every((r) => r.signatureValid)).toBe(true);
      },
    );
  });

  it('listWallets sends the filters given in a fixed order and leaves out undefined ones', async () => {
    const page = { total: 1, page: 1, limit: 100, data: [WALLET] };
    await withApi(routes({ 'GET /v2/wallets': { status: 200, body: page } }), async (client, api) => {
      expect(await client.listWallets()).toEqual(page);
      await client.listWallets({ customer_id: 'c-1', asset: 'ETH', chain: 'ETH_TESTNET', status: 'ARCHIVED', limit: 100, page: 1 });
      await client.listWallets({ status: undefined, customer_id: CUSTOMER.id, chain: 'TRON' });
      expect(api.received.map((r) => r.target)).toEqual([
        '/v2/wallets',
        '/v2/wallets?page=1&limit=100&status=ARCHIVED&chain=ETH_TESTNET&asset=ETH&customer_id=c-1',
        `/v2/wallets?chain=TRON&customer_id=${CUSTOMER.id}`,
      ]);
      api.received.forEach(expectBareRead);
    });
  });

  it('getWallet reads the wallet at its encoded id, external_ref included', async () => {
    const detail = { ...WALLET, external_ref: 'order-9' };
    await withApi(routes({ 'GET /v2/wallets/w%2F1': { status: 200, body: detail } }), async (client, api) => {
      const wallet = await client.getWallet('w/1');
      expect(wallet.external_ref).toBe('order-9');
      expect(api.received[0]!.target).toBe('/v2/wallets/w%2F1');
      expectBareRead(api.received[0]!);
    });
  });

  it('archiveWallet posts no body with a generated Idempotency-Key, kept when a 5xx is retried', async () => {
    const archived = { ...WALLET, status: 'ARCHIVED' };
    await withApi(
      routes({
        'POST /v2/wallets/w%2F1/archive': (_r, i) => (i === 0 ? { status: 503, body: { error: 'down', code: 'DATABASE_ERROR' } } : { status: 200, body: archived }),
      }),
      async (client, api) => {
        const wallet = await client.archiveWallet('w/1');
        expect(wallet).toEqual(archived);
        expect(wallet.lastResponse.attempts).toBe(2);
        await client.archiveWallet('w/1');
        const [first, retry, again] = api.received;
        for (const r of api.received) {
          expect(r.method).toBe('POST');
          expect(r.target).toBe('/v2/wallets/w%2F1/archive');
          expect(r.body.length).toBe(0);
          expect(r.headers['content-type']).toBeUndefined();
          expect(r.signatureValid).toBe(true);
        }
        expect(first!.headers['idempotency-key']).toMatch(UUID_V4);
        expect(retry!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
        expect(again!.headers['idempotency-key']).toMatch(UUID_V4);
        expect(again!.headers['idempotency-key']).not.toBe(first!.headers['idempotency-key']);
      },
    );
  });
});
