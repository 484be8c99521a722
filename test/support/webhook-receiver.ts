// A real local HTTP receiver of webhook deliveries for tests: it records every
// request (headers, raw body, arrival) and answers what the test scripts for
// it: a status, or no answer at all (to make the sender time out).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventEnvelopeSchema } from '../../src/adapters/webhooks/event-schemas.js';
import type { EventName } from '../../src/domain/webhooks/events.js';

export interface Received {
  headers: IncomingHttpHeaders;
  rawBody: string;
  at: number;
  path: string;
}

/** What to answer to the n-th request (from 1): an HTTP status, or 'hang' (never answer). */
export type Script = (n: number, r: Received) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** Deliveries whose headers name this delivery id. */
  byDelivery(id: string): Received[];
  script: Script;
  close(): Promise<void>;
}

export async function startReceiver(script: Script = () => 200, opts: { delayMs?: number } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    script,
    byDelivery: (id) => received.filter((r) => r.headers['x-service-delivery'] === id),
    close: async () => {
      hanging.forEach((res) => res.destroy());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), at: Date.now(), path: req.url ?? '' };
      received.push(r);
      const answer = receiver.script(received.length, r);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      const reply = () => res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer >= 300 && answer < 400 ? '' : `answer ${answer}`);
      if (opts.delayMs) setTimeout(reply, opts.delayMs);
      else reply();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/** Parses a delivered body and checks it against the event's documented schema (throws when it does not match). */
export function checkedEnvelope(r: Received): { event: EventName; created_at: string; data: Record<string, unknown> } {
  const body = JSON.parse(r.rawBody) as { event: EventName };
  return eventEnvelopeSchema(body.event).parse(body) as { event: EventName; created_at: string; data: Record<string, unknown> };
}
