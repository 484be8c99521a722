// The published signing vectors (docs/signing-test-vectors.md), computed with
// Python and openssl, must be exactly what the SDK produces.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WalletClient } from '../../../src/sdk/client.js';
import { authHeaders, sha256Hex, signRequest } from '../../../src/sdk/signing.js';
import { signWebhook, verifyWebhook } from '../../../src/sdk/webhooks.js';
import { startFakeApi } from './fake-wallet-api.js';

const SECRET = 'Xq8v2Lr5Tn0Yc7Wk3Pz9Hs6Dm1Bf4Gj2Ue8Ra5Nw0Q';
const TIMESTAMP = '1767225600';
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const WITHDRAWAL = {
  chain: 'BSC',
  asset: 'USDT_BSC',
  amount: '12.50',
  destination_address: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
};

interface Vector {
  name: string;
  method: string;
  path: string;
  body: string;
  bytes: number;
  bodySha256: string;
  signature: string;
}

const VECTORS: Vector[] = [
  {
    name: '1 GET without a body',
    method: 'GET',
    path: '/v2/chains',
    body: '',
    bytes: 0,
    bodySha256: EMPTY_SHA256,
    signature: 'd8fe832a1ad5feb7c1c7f0d166343359a92352a462d7265cbe06995f98942a21',
  },
  {
    name: '2 GET with a query string',
    method: 'GET',
    path: '/v2/wallets?page=1&limit=20&status=ACTIVE',
    body: '',
    bytes: 0,
    bodySha256: EMPTY_SHA256,
    signature: '4410ae76458e65c785838453db78d73f8fdf757d3398ff5856d97ce7850daa8e',
  },
  {
    name: '3 POST with a compact JSON body',
    method: 'POST',
    path: '/v2/withdrawals',
    body: '{"chain":"BSC","asset":"USDT_BSC","amount":"12.50","destination_address":"0x8ba1f109551bD432803012645Ac136ddd64DBA72"}',
    bytes: 118,
    bodySha256: '02d1b396456afabc781712364f73fac7fb40cee41223626c00449468112e3b62',
    signature: '28b230c7a1283b9896c4e21e22738e4835e88faa0c69080ad9549aae22acc523',
  },
  {
    name: '4 POST with the same JSON pretty-printed',
    method: 'POST',
    path: '/v2/withdrawals',
    body: '{\n  "chain": "BSC",\n  "asset": "USDT_BSC",\n  "amount": "12.50",\n  "destination_address": "0x8ba1f109551bD432803012645Ac136ddd64DBA72"\n}',
    bytes: 135,
    bodySha256: '025a13ea5c62e4ce12f7539c6cda2cab83f51ac134d4fbd18a2e6bf4503d89d6',
    signature: 'f047f8f49a86248d955ab5baed19b0a45cf5a58bf8d9115cda5533b24ca36dbe',
  },
  {
    name: '5 POST with non-ASCII UTF-8 characters',
    method: 'POST',
    path: '/v2/customers',
    body: '{"external_ref":"cust-0042","label":"Café Zürich – 東京店"}',
    bytes: 66,
    bodySha256: 'dc15aad599e97a47882bfcb9fe3bdb9d91c7c915cc73f2fe85bc04f31dcf2a95',
    signature: 'c6ea509944aa8b3278d9ad6dd0d75a1be3473618227cba75676f7957ce34c3aa',
  },
  {
    name: '6 DELETE without a body',
    method: 'DELETE',
    path: '/v2/api-keys/3f1c2a7e-9b4d-4c1e-8f2a-6d5b7c9e0a13',
    body: '',
    bytes: 0,
    bodySha256: EMPTY_SHA256,
    signature: '9fb80e152e42bd38048fc90c1082bc311ac62bc7138554eba8db2171077c9a5e',
  },
];

const WEBHOOK = {
  secret: 'whsec_3Jm9Qa7Lx2Vt8Ne5Rc1Ky6Pd4Hw0Zb',
  timestamp: '1767225660',
  rawBody:
    '{"event":"DEPOSIT_CONFIRMED","created_at":"2026-01-01T00:01:00.000Z","data":{"deposit_id":"8d0f6a52-1c3b-4e7a-9f21-5b6c7d8e9f00","asset":"USDT_TRON","amount":"250.000000"}}',
  signature: 'sha256=ba4e07ebf1ae5719b7a824d716e967ae4df855d21f3de4f6bf4a571c5080bb7c',
};

describe('request signing test vectors', () => {
  for (const v of VECTORS) {
    it(`vector ${v.name}`, () => {
      expect(Buffer.byteLength(v.body, 'utf8')).toBe(v.bytes);
      expect(sha256Hex(v.body)).toBe(v.bodySha256);
      expect(signRequest({ secret: SECRET, timestamp: TIMESTAMP, method: v.method, path: v.path, body: v.body })).toBe(v.signature);
      // The same bytes handed over as bytes sign the same.
      expect(signRequest({ secret: SECRET, timestamp: TIMESTAMP, method: v.method, path: v.path, body: Buffer.from(v.body, 'utf8') })).toBe(
        v.signature,
      );
      expect(authHeaders('sk_test_vectors', { secret: SECRET, timestamp: TIMESTAMP, method: v.method, path: v.path, body: v.body })).toEqual({
        'X-Service-Key': 'sk_test_vectors',
        'X-Service-Timestamp': TIMESTAMP,
        'X-Service-Signature': v.signature,
      });
    });
  }

  it('signs the lowercase method as its uppercase form', () => {
    expect(signRequest({ secret: SECRET, timestamp: TIMESTAMP, method: 'get', path: '/v2/chains' })).toBe(VECTORS[0]!.signature);
  });

  it('webhook vector', () => {
    expect(signWebhook({ secret: WEBHOOK.secret, timestamp: WEBHOOK.timestamp, rawBody: WEBHOOK.rawBody })).toBe(WEBHOOK.signature);
    const verified = verifyWebhook({
      rawBody: WEBHOOK.rawBody,
      headers: { 'X-Service-Timestamp': WEBHOOK.timestamp, 'X-Service-Signature': WEBHOOK.signature },
      secret: WEBHOOK.secret,
      now: new Date(Number(WEBHOOK.timestamp) * 1000),
    });
    expect(verified.event).toBe('DEPOSIT_CONFIRMED');
  });

  it('are the values published in docs/signing-test-vectors.md', () => {
    const doc = readFileSync(new URL('../../../docs/signing-test-vectors.md', import.meta.url), 'utf8');
    expect(doc).toContain(SECRET);
    expect(doc).toContain(TIMESTAMP);
    for (const v of VECTORS) {
      for (const published of [v.path, v.bodySha256, v.signature, `${TIMESTAMP}.${v.method}.${v.path}.${v.bodySha256}`, `| ${v.bytes} bytes |`]) {
        expect(doc).toContain(published);
      }
      if (v.body !== '') expect(doc).toContain(`\`\`\`json\n${v.body}\n\`\`\``);
    }
    for (const published of [WEBHOOK.secret, WEBHOOK.timestamp, WEBHOOK.signature, `\`\`\`json\n${WEBHOOK.rawBody}\n\`\`\``]) {
      expect(doc).toContain(published);
    }
  });
});

describe('the client on the wire', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends vector 3 byte for byte when the clock reads its timestamp', async () => {
    const api = await startFakeApi(SECRET, () => ({ status: 201, body: { id: 'w1' } }));
    try {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Number(TIMESTAMP) * 1000 + 250);
      const client = new WalletClient({ baseUrl: api.baseUrl, keyId: 'sk_test_vectors', secret: SECRET });
      await client.request('POST', '/v2/withdrawals', { body: WITHDRAWAL, idempotencyKey: 'k1' });
      const [sent] = api.received;
      expect(sent!.body.toString('utf8')).toBe(VECTORS[2]!.body);
      expect(sent!.headers['x-service-timestamp']).toBe(TIMESTAMP);
      expect(sent!.headers['x-service-signature']).toBe(VECTORS[2]!.signature);
    } finally {
      await api.close();
    }
  });

  it('sends vector 2 from a query object', async () => {
    const api = await startFakeApi(SECRET, () => ({ status: 200, body: { total: 0, page: 1, limit: 20, data: [] } }));
    try {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Number(TIMESTAMP) * 1000);
      const client = new WalletClient({ baseUrl: api.baseUrl, keyId: 'sk_test_vectors', secret: SECRET });
      await client.request('GET', '/v2/wallets', { query: { page: 1, limit: 20, customer_id: undefined, status: 'ACTIVE' } });
      const [sent] = api.received;
      expect(sent!.target).toBe(VECTORS[1]!.path);
      expect(sent!.headers['x-service-signature']).toBe(VECTORS[1]!.signature);
    } finally {
      await api.close();
    }
  });
});
