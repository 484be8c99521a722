// The HTTP sender of webhook attempts against a real local receiver: private
// addresses are refused at connect time (the agent's lookup checks what it
// connects to, so a DNS answer that changes after registration cannot reach
// a private address), redirects are not followed, and an attempt is bounded
// by its time-out.
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpWebhookSender, checkedLookup, type ResolveAll } from '../../src/adapters/webhooks/http-sender.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver(() => 200);
});
afterAll(() => receiver.close());

const port = () => new URL(receiver.url).port;
const send = (sender: HttpWebhookSender, url: string, timeoutMs = 2000) =>
  sender.send({ url, headers: { 'content-type': 'application/json' }, body: '{"event":"X"}', timeoutMs });

/** A DNS that answers each host from a table, and counts the questions. */
function fakeDns(table: Record<string, string[]>): ResolveAll & { asked: string[] } {
  const asked: string[] = [];
  const resolve = ((host: string, cb: (err: Error | null, a: LookupAddress[]) => void) => {
    asked.push(host);
    const addresses = table[host];
    if (!addresses) return cb(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    cb(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  }) as ResolveAll & { asked: string[] };
  resolve.asked = asked;
  return resolve;
}

describe('webhook sender', () => {
  it('refuses at connect time a host that now resolves to a private address, and sends nothing', async () => {
    const before = receiver.received.length;
    // Registered when it resolved publicly; it now answers with loopback, where a receiver listens.
    const sender = new HttpWebhookSender('public', fakeDns({ 'rebound.example.test': ['127.0.0.1'] }));
    // (plain http is refused outright without private receivers; https reaches the lookup)
    const result = await send(sender, `https://rebound.example.test:${port()}/hooks`);
    expect(result.responseStatus).toBeNull();
    expect(result.error).toMatch(/^refused: .*127\.0\.0\.1/);
    expect(receiver.received.length).toBe(before);
    sender.close();
  });

  it('checks every resolved address and hands the socket only the checked ones', async () => {
    const mixed = checkedLookup('public', fakeDns({ 'mixed.example.test': ['93.184.216.34', '::ffff:10.0.0.1'] }));
    const err = await new Promise<NodeJS.ErrnoException | null>((r) => mixed('mixed.example.test', { all: true }, (e) => r(e)));
    expect(err?.code).toBe('EUNSAFEADDRESS');

    const dns = fakeDns({ 'public.example.test': ['93.184.216.34', '2606:2800:220:1::1'] });
    const lookup = checkedLookup('public', dns);
    const all = await new Promise<unknown>((r) => lookup('public.example.test', { all: true }, (_e, a) => r(a)));
    expect(all).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    const v4 = await new Promise<unknown>((r) => lookup('public.example.test', { family: 4 }, (_e, a, f) => r([a, f])));
    expect(v4).toEqual(['93.184.216.34', 4]);
    expect(dns.asked).toEqual(['public.example.test', 'public.example.test']);
  });

  it('refuses an IP literal that is not public without connecting', async () => {
    const sender = new HttpWebhookSender('public');
    const before = receiver.received.length;
    expect((await send(sender, `https://127.0.0.1:${port()}/hooks`)).error).toMatch(/^refused/);
    expect((await send(sender, `https://[::ffff:127.0.0.1]:${port()}/hooks`)).error).toMatch(/^refused/);
    expect(receiver.received.length).toBe(before);
    sender.close();
  });

  it('does not follow a redirect: the attempt fails with the 3xx', async () => {
    const redirecting = await startReceiver(() => 302);
    const sender = new HttpWebhookSender('private');
    const result = await send(sender, redirecting.url);
    expect(result).toMatchObject({ responseStatus: 302 });
    expect(result.error).toMatch(/redirects are not followed/);
    expect(redirecting.received).toHaveLength(1);
    sender.close();
    await redirecting.close();
  });

  it('gives up on a receiver that does not answer within the time-out, and delivers on a 2xx', async () => {
    const silent = await startReceiver(() => 'hang');
    const sender = new HttpWebhookSender('private');
    const started = Date.now();
    const result = await send(sender, silent.url, 500);
    expect(result).toMatchObject({ responseStatus: null, error: 'timed out after 0.5 s' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await send(sender, receiver.url)).toMatchObject({ responseStatus: 200, error: null });
    sender.close();
    await silent.close();
  });

  it('keeps the receiver error text storable (no NUL or control characters) and the status of an answer that never ends', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      req.resume();
      if (req.url === '/nul') return void res.writeHead(500).end('bad\u0000thing\u001b[31m red\u0007');
      res.writeHead(500);
      res.write('slow');
      // never ends
    });
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const sender = new HttpWebhookSender('private');
    const nul = await send(sender, `${base}/nul`);
    expect(nul).toMatchObject({ responseStatus: 500, error: 'HTTP 500: bad thing [31m red' });
    const slow = await send(sender, `${base}/slow`, 500);
    expect(slow).toMatchObject({ responseStatus: 500, error: 'timed out after 0.5 s (HTTP 500, the answer did not end)' });
    sender.close();
    server.closeAllConnections();
    server.close();
  });
});
