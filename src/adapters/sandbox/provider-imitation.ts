// A provider imitation for the sandbox and the tests: an HTTP proxy, one per
// network, in front of a local node (anvil's JSON-RPC, or the TRON stand-in's
// HTTP API) that answers as a hosted provider's POOL of backends would. A
// local node is one node: it never lags, never reorgs between two reads, never
// rate-limits. Hosted providers do all of that behind one URL; each behaviour
// copied here is a row of BEHAVIOURS with its public source. Each request
// goes, with probability `share`, to one of the misbehaving backends that are
// on (drawn from a seeded PRNG, so a run can be repeated), else to the upstream
// as is; the provider's front door (range limits, methods not served, TronGrid's
// penalty) applies to every request. Never on the production path.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ActiveRows, seededRandom, type ContentBackend, type ImitationContext, type ImitationKind, type Served } from './provider-behaviours.js';
import { EvmImitation } from './provider-imitation-evm.js';
import { BurstGate, TronImitation, trongrid } from './provider-imitation-tron.js';

export { BEHAVIOURS, PRESETS, parseImitationOption, type BehaviourMode, type BehaviourRow, type ImitationKind } from './provider-behaviours.js';

export interface ProviderImitationOptions {
  kind: ImitationKind;
  /** Upstream URL (anvil JSON-RPC, or the TRON stand-in's base URL). */
  target: string;
  /** Rows that are on: names, or `name:key=value[:key=value]` to set a row's parameters (see BEHAVIOURS). Rows of the other kind are ignored. */
  behaviours: string[];
  /** Share of requests served by a misbehaving backend, for the `share` rows (default 0.5). */
  share?: number;
  /** Seed of the PRNG that picks backends and lags (default a fixed one: runs repeat). */
  seed?: number;
  /** How long TronGrid's 403 penalty lasts (default 30000 ms). */
  penaltyMs?: number;
  /**
   * When set, the `share` rows take only requests of these methods (EVM; every request of a batch) or paths
   * (TRON, e.g. /wallet/gettransactioninfobyid); the rest go to the upstream. A test picks exactly which reads
   * come from a lagging backend (a nonce from a fresh one, a receipt from a stale one).
   */
  onlyFor?: string[];
  /** Default 127.0.0.1. */
  host?: string;
  /** Default an ephemeral port. */
  port?: number;
}

export interface ProviderImitation {
  url: string;
  /** Calls by method (EVM; each request of a batch) or path (TRON). */
  calls: Map<string, number>;
  /**
   * Requests by who answered: the backend of the pool that took each request ('upstream', or a `share` row),
   * and each front-door row (`every`, `burst`) that refused or changed part of an answer.
   */
  answeredBy: Map<string, number>;
  /** Turns rows on or off at run time (the same forms as `behaviours`). */
  set(behaviours: string[]): void;
  close(): Promise<void>;
}

const DEFAULT_SEED = 0x5eed;
const MAX_BODY_BYTES = 5_000_000;

export async function startProviderImitation(opts: ProviderImitationOptions): Promise<ProviderImitation> {
  const share = opts.share ?? 0.5;
  if (!(share >= 0 && share <= 1)) throw new Error(`share must be between 0 and 1, not ${share}`);
  const penaltyMs = opts.penaltyMs ?? 30_000;
  let rows = ActiveRows.of(opts.kind, opts.behaviours);
  const rng = seededRandom(opts.seed ?? DEFAULT_SEED);
  const calls = new Map<string, number>();
  const answeredBy = new Map<string, number>();
  const bump = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + 1);
  const ctx: ImitationContext = {
    target: opts.target,
    rows: () => rows,
    rng,
    countCall: (key) => bump(calls, key),
    answered: (name) => bump(answeredBy, name),
  };
  const evm = new EvmImitation(ctx);
  const tron = new TronImitation(ctx);
  const burst = new BurstGate();
  const sockets = new Set<Socket>();
  /** Requests held back by the `slow` row: released (and dropped) on close. */
  const waiting = new Set<() => void>();
  let closed = false;

  /** The backend of the pool that takes this request. */
  const pick = (keys: string[]): string => {
    const pool = rows.shareRows();
    if (opts.onlyFor && !keys.every((k) => opts.onlyFor!.includes(k))) return 'upstream';
    if (pool.length === 0 || rng() >= share) return 'upstream';
    return pool[Math.floor(rng() * pool.length)]!;
  };

  const delay = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiting.add(done);
    });

  const answer = async (req: IncomingMessage, body: string): Promise<Served | 'drop'> => {
    const path = (req.url ?? '/').split('?')[0]!;
    const keys = opts.kind === 'evm' ? methodsOf(body) : [path];
    if (opts.onlyFor && keys.length > 1 && keys.some((k) => opts.onlyFor!.includes(k)) && !keys.every((k) => opts.onlyFor!.includes(k))) {
      // A batch mixing methods the misbehaving backends take and others: each request on its own.
      return batchOfOne(await Promise.all((JSON.parse(body) as unknown[]).map((item) => answer(req, JSON.stringify(item)))));
    }
    for (const k of keys) ctx.countCall(k);
    if (opts.kind === 'tron') {
      if (rows.has('trongrid-403') && burst.refuse(Date.now(), rows.param('trongrid-403', 'burst'), penaltyMs)) {
        ctx.answered('trongrid-403');
        return trongrid.suspended(rows.param('trongrid-403', 'burst'), penaltyMs);
      }
    }
    const backend = pick(keys);
    ctx.answered(backend);
    switch (backend) {
      case 'dropped-connection':
        return 'drop';
      case 'rate-limit-429':
        return evm.rateLimited429(body, rows.param(backend, 'retryAfterSeconds'));
      case 'rate-limit-32005':
        return evm.rateLimited32005(body, rows.param(backend, 'backoffSeconds'));
      case 'trongrid-503':
        return trongrid.unavailable();
      case 'trongrid-429':
        return trongrid.tooMany();
      case 'slow':
        await delay(rows.param('slow', 'delayMs'));
        if (closed) return 'drop';
        break;
    }
    const content: ContentBackend = backend === 'lagging-backend' || backend === 'sibling-fork' ? backend : 'upstream';
    if (opts.kind === 'evm') return evm.serve(body, content);
    return tron.serve({ path, url: req.url ?? '/', method: req.method ?? 'POST', body }, content);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413, { 'content-type': 'text/plain' }).end('Request Entity Too Large');
        return;
      }
      chunks.push(c as Buffer);
    }
    let served: Served | 'drop';
    try {
      served = await answer(req, Buffer.concat(chunks).toString('utf8'));
    } catch {
      // The upstream is down or answered what is not JSON: the provider's gateway says so.
      served = { status: 502, body: 'Bad Gateway', headers: { 'content-type': 'text/plain' } };
    }
    if (served === 'drop') {
      req.socket.destroy();
      return;
    }
    if (res.destroyed) return;
    res.writeHead(served.status, served.headers ?? {}).end(served.body);
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    calls,
    answeredBy,
    set(behaviours) {
      rows = ActiveRows.of(opts.kind, behaviours);
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        for (const release of [...waiting]) release();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Single answers put back together as one batch answer (a dropped one drops the whole). */
function batchOfOne(parts: (Served | 'drop')[]): Served | 'drop' {
  if (parts.some((p) => p === 'drop')) return 'drop';
  const served = parts as Served[];
  const status = served.find((p) => p.status !== 200)?.status ?? 200;
  const bodies = served.map((p) => JSON.parse(p.body) as unknown);
  return { status, body: JSON.stringify(bodies), headers: { 'content-type': 'application/json' } };
}

/** The methods of a JSON-RPC body (each request of a batch). */
function methodsOf(body: string): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed]).map((r) => (typeof (r as { method?: unknown } | null)?.method === 'string' ? (r as { method: string }).method : '(malformed)'));
  } catch {
    return ['(malformed)'];
  }
}
