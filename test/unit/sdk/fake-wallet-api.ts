// A stand-in for the API on a real node:http socket: records exactly what the
// client sent, checks each signature the way the server does (recomputed here
// with node:crypto, not with the SDK) and refuses a reused signature as the
// real replay guard would.
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  /** The request target as it arrived: path and query string. */
  target: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  signatureValid: boolean;
}

export type Reply =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Destroy the socket without answering. */
  | 'drop'
  /** Never answer. */
  | 'hang';

export interface FakeApi {
  baseUrl: string;
  received: Received[];
  close(): Promise<void>;
}

export function expectedSignature(secret: string, r: Pick<Received, 'method' | 'target' | 'body'>, timestamp: string): string {
  const bodyHash = createHash('sha256').update(r.body).digest('hex');
  return createHmac('sha256', secret).update(`${timestamp}.${r.method}.${r.target}.${bodyHash}`).digest('hex');
}

export async function startFakeApi(secret: string, reply: (req: Received, index: number) => Reply): Promise<FakeApi> {
  const received: Received[] = [];
  const seenSignatures = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const timestamp = String(req.headers['x-service-timestamp'] ?? '');
      const signature = String(req.headers['x-service-signature'] ?? '');
      const r: Received = { method: req.method!, target: req.url!, headers: req.headers, body: Buffer.concat(chunks), signatureValid: false };
      r.signatureValid = signature === expectedSignature(secret, r, timestamp);
      const index = received.push(r) - 1;
      res.setHeader('X-Request-Id', `req_${index}`);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      if (seenSignatures.has(signature)) return send(401, { error: 'This signature was already used', code: 'REPLAY_DETECTED' });
      seenSignatures.add(signature);
      const out = reply(r, index);
      if (out === 'drop') return req.socket.destroy();
      if (out === 'hang') return;
      send(out.status, out.body ?? {}, out.headers);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Answer = Reply | ((req: Received, index: number) => Reply);

/**
 * A reply function that answers by `METHOD /path` (the query string is not
 * part of the match) and, like the API for an unknown route, 404 NOT_FOUND to
 * anything else: a call that reaches its answer used the right method and path.
 */
export function routes(table: Record<string, Answer>): (req: Received, index: number) => Reply {
  return (req, index) => {
    const answer = table[`${req.method} ${req.target.split('?')[0]}`];
    if (answer === undefined) return { status: 404, body: { error: `No route ${req.method} ${req.target}`, code: 'NOT_FOUND' } };
    return typeof answer === 'function' ? answer(req, index) : answer;
  };
}
