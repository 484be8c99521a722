// The list iterators (client.wallets.list(...) and the others) over a real
// HTTP socket: they walk every page with the caller's filters, stop at the
// last page, and yield each record once even when records shift between pages.
import { describe, expect, it } from 'vitest';
import type { Received, Reply } from './fake-wallet-api.js';
import { failureOf, withApi } from './sdk-harness.js';
import { NotFoundError, PageIterator } from '../../../src/sdk/index.js';

const wallet = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  chain: 'ETH_TESTNET',
  asset: 'USDT_ETH',
  address: `0x${String(n).padStart(40, '0')}`,
  status: 'ACTIVE',
  customer_id: null,
  created_at: '2026-01-01T00:00:00.000Z',
});

/** A list of `records`, answered page by page as the API does. */
const pagedList = (records: { id: string }[]) => (req: Received): Reply => {
  const query = new URL(req.target, 'http://x').searchParams;
  const page = Number(query.get('page') ?? '1');
  const limit = Number(query.get('limit') ?? '20');
  return { status: 200, body: { total: records.length, page, limit, data: records.slice((page - 1) * limit, page * limit) } };
};

const query = (r: Received) => Object.fromEntries(new URL(r.target, 'http://x').searchParams);

describe('list iterators', () => {
  it('walks every page of a list with its filters and yields each record in order', async () => {
    const all = Array.from({ length: 5 }, (_, i) => wallet(i + 1));
    await withApi(pagedList(all), async (client, api) => {
      const seen: string[] = [];
      for await (const w of client.wallets.list({ chain: 'ETH', customer_id: 'c-1', limit: 2 })) seen.push(w.address);
      expect(seen).toEqual(all.map((w) => w.address));
      expect(api.received.map((r) => r.target.split('?')[0])).toEqual(['/v2/wallets', '/v2/wallets', '/v2/wallets']);
      expect(api.received.map(query)).toEqual([
        { page: '1', limit: '2', chain: 'ETH', customer_id: 'c-1' },
        { page: '2', limit: '2', chain: 'ETH', customer_id: 'c-1' },
        { page: '3', limit: '2', chain: 'ETH', customer_id: 'c-1' },
      ]);
      expect(api.received.every((r) => r.signatureValid)).toBe(true);
    });
  });

  it('asks for 100 a page by default and stops after a full last page without asking for an empty one', async () => {
    const all = Array.from({ length: 100 }, (_, i) => wallet(i + 1));
    await withApi(pagedList(all), async (client, api) => {
      expect(await client.deposits.list({ status: 'CONFIRMED' }).toArray()).toHaveLength(100);
      expect(api.received.map(query)).toEqual([{ page: '1', limit: '100', status: 'CONFIRMED' }]);
      expect(api.received[0]!.target.split('?')[0]).toBe('/v2/transactions/deposits');
    });
  });

  it('yields a record pushed onto the next page by a newer one only once, and goes on while total grows', async () => {
    const older = Array.from({ length: 4 }, (_, i) => wallet(i + 1));
    let list = older;
    await withApi(
      (req, index) => {
        // A record is created between the first and the second page: everything moves one place down.
        if (index === 1) list = [wallet(99), ...older];
        return pagedList(list)(req);
      },
      async (client) => {
        const seen = (await client.customers.list({ limit: 2 }).toArray()).map((r) => r.id);
        expect(seen).toEqual(older.map((w) => w.id));
      },
    );
  });

  it('hands out whole pages with their metadata through pages()', async () => {
    await withApi(pagedList([wallet(1), wallet(2), wallet(3)]), async (client) => {
      const pages = [];
      for await (const p of client.withdrawals.list({ limit: 2 }).pages()) pages.push({ n: p.data.length, total: p.total, attempts: p.lastResponse.attempts });
      expect(pages).toEqual([
        { n: 2, total: 3, attempts: 1 },
        { n: 1, total: 3, attempts: 1 },
      ]);
    });
  });

  it('iterates every paginated endpoint at its own path', async () => {
    await withApi(pagedList([]), async (client, api) => {
      const iterators: PageIterator<{ id: string }>[] = [
        client.apiKeys.list(),
        client.webhookEndpoints.list(),
        client.webhookEndpoints.listDeliveries('wh 1', { status: 'FAILED' }),
        client.customers.list(),
        client.wallets.list(),
        client.withdrawals.list(),
        client.withdrawals.listRecords(),
        client.deposits.list(),
        client.transactions.list({ type: 'DEPOSIT' }),
      ];
      for (const it of iterators) expect(await it.toArray()).toEqual([]);
      expect(api.received.map((r) => r.target)).toEqual([
        '/v2/api-keys?page=1&limit=100',
        '/v2/webhooks?page=1&limit=100',
        '/v2/webhooks/wh%201/deliveries?page=1&limit=100&status=FAILED',
        '/v2/customers?page=1&limit=100',
        '/v2/wallets?page=1&limit=100',
        '/v2/withdrawals?page=1&limit=100',
        '/v2/transactions/withdrawals?page=1&limit=100',
        '/v2/transactions/deposits?page=1&limit=100',
        '/v2/transactions?page=1&limit=100&type=DEPOSIT',
      ]);
    });
  });

  it('raises the typed error of a failed page', async () => {
    await withApi(
      () => ({ status: 404, body: { error: 'No such endpoint', code: 'NOT_FOUND' } }),
      async (client) => {
        const err = await failureOf(client.webhookEndpoints.listDeliveries('missing').toArray());
        expect(err).toBeInstanceOf(NotFoundError);
        expect(err.code).toBe('NOT_FOUND');
      },
    );
  });
});
