// A proxy in front of a local node (JSON-RPC, or a TRON HTTP API) that a test can break on cue:
// down (connections refused), answering 429 or 500, or refusing eth_getLogs
// ranges wider than N blocks the way hosted providers do, or a method it does not serve.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type ProxyMode = 'pass' | 'down' | '429' | '500';

export interface RpcProxy {
  url: string;
  mode: ProxyMode;
  /** When set, eth_getLogs over more blocks than this is refused with a provider-style error. */
  maxLogRange: number | null;
  /** Requests seen, by method. */
  calls: Map<string, number>;
  /** Requests carrying one of these methods are answered 500 (the node "lost" them), the rest pass. */
  failMethods: Set<string>;
  /** Calls of these methods are answered as geth answers a method it does not serve (-32601), the rest pass. */
  refuseMethods: Set<string>;
  /** Requests to one of these paths (a TRON HTTP API call, e.g. /wallet/broadcasttransaction) are answered 500. */
  failPaths: Set<string>;
  /** Rewrites the body of a request to a path before it is passed on (a node that builds something else than asked). */
  rewrite: ((path: string, body: Record<string, unknown>) => Record<string, unknown>) | null;
  /** Fails the next `n` requests with `mode` then passes. */
  failNext(n: number, mode: Exclude<ProxyMode, 'pass'>): void;
  close(): Promise<void>;
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const sockets = new Set<Socket>();
  let failures = 0;
  let failMode: Exclude<ProxyMode, 'pass'> = '500';
  const proxy: RpcProxy = {
    url: '',
    mode: 'pass',
    maxLogRange: null,
    calls: new Map(),
    failMethods: new Set(),
    refuseMethods: new Set(),
    failPaths: new Set(),
    rewrite: null,
    failNext(n, mode) {
      failures = n;
      failMode = mode;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body = Buffer.concat(chunks).toString();
    const path = (req.url ?? '/').split('?')[0]!;
    if (proxy.failPaths.has(path)) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
      return;
    }
    if (proxy.rewrite && body.trim().startsWith('{')) body = JSON.stringify(proxy.rewrite(path, JSON.parse(body) as Record<string, unknown>));
    const mode: ProxyMode = failures > 0 ? (failures--, failMode) : proxy.mode;
    if (mode === 'down') {
      req.socket.destroy();
      return;
    }
    if (mode === '429' || mode === '500') {
      res.writeHead(mode === '429' ? 429 : 500, { 'content-type': 'text/plain' }).end(mode === '429' ? 'Too Many Requests' : 'Internal Server Error');
      return;
    }
    const parsed = JSON.parse(body) as { id: number; method: string; params: { fromBlock: string; toBlock: string }[] } | { id: number; method: string; params: { fromBlock: string; toBlock: string }[] }[];
    for (const r of Array.isArray(parsed) ? parsed : [parsed]) proxy.calls.set(r.method, (proxy.calls.get(r.method) ?? 0) + 1);
    if ((Array.isArray(parsed) ? parsed : [parsed]).some((r) => proxy.failMethods.has(r.method))) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
      return;
    }
    if (proxy.maxLogRange !== null || proxy.refuseMethods.size > 0) {
      // Each request on its own: the too-wide eth_getLogs (or a refused method) gets the provider's error, the rest the node's answers.
      const items = Array.isArray(parsed) ? parsed : [parsed];
      const answers = await Promise.all(
        items.map(async (r) => {
          if (proxy.refuseMethods.has(r.method)) {
            return { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: `the method ${r.method} does not exist/is not available` } };
          }
          if (proxy.maxLogRange !== null && r.method === 'eth_getLogs' && Number(BigInt(r.params[0]!.toBlock) - BigInt(r.params[0]!.fromBlock)) + 1 > proxy.maxLogRange) {
            return { jsonrpc: '2.0', id: r.id, error: { code: -32005, message: 'query returned more than 10000 results' } };
          }
          const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(r) });
          return (await upstream.json()) as unknown;
        }),
      );
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]));
      return;
    }
    try {
      // The request's path too: a TRON node's HTTP API is one path per call.
      const upstream = await fetch(new URL(req.url ?? '/', target), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(Buffer.from(await upstream.arrayBuffer()));
    } catch {
      req.socket.destroy();
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
