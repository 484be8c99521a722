// `npm run listen`: the workspace's webhooks on the developer's machine, in
// one command (docs/guides: webhooks). It registers a temporary endpoint
// pointing at a receiver it runs on 127.0.0.1, verifies every delivery's
// signature with the endpoint's secret, prints each event in one line (one
// JSON object with --json), optionally forwards the delivery untouched to a
// local URL, and removes the endpoint when it stops. The local sandbox calls
// loopback receivers without a restart (WEBHOOK_ALLOW_PRIVATE=loopback);
// production never does, so this is a sandbox tool.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs, styleText } from 'node:util';
import { EVENT_NAMES } from '../../domain/webhooks/events.js';
import { verifyWebhook, WebhookVerificationError } from '../../sdk/webhooks.js';
import { printable } from './terminal-text.js';
import { CredentialsError, loadCredentials, type Credentials } from './credentials.js';
import { errorCodeOf, signedFetch, type SignedAnswer } from './signed-fetch.js';
import { TRIGGERS, runTrigger, type TriggerName } from './listen-triggers.js';

export const LISTEN_USAGE = [
  'usage: npm run listen [-- [--events E1,E2] [--forward-to URL] [--trigger EVENT] [--json] [--live] [--port N] [--max-events N]]',
  '',
  '  --events       the events to receive (default: every event)',
  '  --forward-to   also POST each delivery, body and headers untouched, to a local URL (e.g. http://localhost:4000/hooks);',
  '                 its status is the answer the service gets, so a failing receiver sees the retries',
  `  --trigger      once listening, cause an event without moving real money: ${Object.keys(TRIGGERS).join(', ')}`,
  '  --json         one JSON object per delivery on stdout instead of a line',
  '  --live         use the workspace file\'s live key instead of its test key',
  '  --port         the local receiver\'s port (default: a free one)',
  '  --max-events   stop after this many verified deliveries (for scripts)',
  '',
  'The key: WALLET_KEY_ID and WALLET_SECRET, else the sandbox workspace file DATA_DIR/workspace.json (.data/workspace.json).',
  'Ctrl-C stops it and removes its endpoint.',
].join('\n');

/**
 * Every listen endpoint's URL is /npm-run-listen/<token>, the token random per
 * run: how a later run tells one an earlier run left behind (and checks that
 * its receiver is that run, not whatever now answers on the port) without
 * ever touching an integrator's own endpoint.
 */
export const LISTEN_PATH = '/npm-run-listen';
const LISTEN_URL = /^\/npm-run-listen\/([0-9a-f]{32})$/;
/** The largest delivery accepted: far above any event's body, far below what would hurt the machine. */
const MAX_BODY_BYTES = 256 * 1024;

export interface ListenIo {
  out: (s: string) => void;
  err: (s: string) => void;
  env: NodeJS.ProcessEnv;
  color: boolean;
}

interface Options {
  events: string[];
  forwardTo: URL | null;
  trigger: TriggerName | null;
  json: boolean;
  side: 'test' | 'live';
  port: number;
  maxEvents: number | null;
}

class UsageError extends Error {}

export function parseListenArgs(argv: string[]): Options | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        events: { type: 'string' },
        'forward-to': { type: 'string' },
        trigger: { type: 'string' },
        json: { type: 'boolean' },
        live: { type: 'boolean' },
        port: { type: 'string' },
        'max-events': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return 'help';
  const events = values.events === undefined ? [...EVENT_NAMES] : values.events.split(',').map((e) => e.trim().toUpperCase()).filter(Boolean);
  const unknown = events.find((e) => !(EVENT_NAMES as readonly string[]).includes(e));
  if (unknown !== undefined || events.length === 0) throw new UsageError(`--events: ${unknown ?? '(none)'} is not an event (${EVENT_NAMES.join(', ')})`);
  let forwardTo: URL | null = null;
  if (values['forward-to'] !== undefined) {
    try {
      forwardTo = new URL(values['forward-to']);
    } catch {
      throw new UsageError(`--forward-to: not a URL (${values['forward-to']})`);
    }
    if (forwardTo.protocol !== 'http:' && forwardTo.protocol !== 'https:') throw new UsageError('--forward-to: must be an http or https URL');
  }
  const trigger = values.trigger === undefined ? null : values.trigger.toUpperCase();
  if (trigger !== null && !(trigger in TRIGGERS)) throw new UsageError(`--trigger: one of ${Object.keys(TRIGGERS).join(', ')}`);
  if (trigger !== null && !events.some((e) => (TRIGGERS[trigger as TriggerName].emits as readonly string[]).includes(e))) {
    throw new UsageError(`--trigger ${trigger} emits ${TRIGGERS[trigger as TriggerName].emits.join(', ')}, none of which --events asks for`);
  }
  const count = (name: string, text: string | undefined, min: number, max: number): number | null => {
    if (text === undefined) return null;
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new UsageError(`--${name}: a whole number from ${min} to ${max}`);
    return Number(text);
  };
  return {
    events,
    forwardTo,
    trigger: trigger as TriggerName | null,
    json: values.json === true,
    side: values.live ? 'live' : 'test',
    port: count('port', values.port, 1, 65535) ?? 0,
    maxEvents: count('max-events', values['max-events'], 1, 100000),
  };
}

/** Runs until stopped (or --max-events); returns the exit code. `stop` resolves when the process is told to stop. */
export async function runListen(argv: string[], io: ListenIo, stop: Promise<string>): Promise<number> {
  let opts: Options | 'help';
  let creds: Credentials;
  try {
    opts = parseListenArgs(argv);
    if (opts === 'help') {
      io.out(LISTEN_USAGE);
      return 0;
    }
    creds = loadCredentials(io.env, opts.side);
  } catch (err) {
    if (err instanceof UsageError) io.err(`error: ${err.message}\n\n${LISTEN_USAGE}`);
    else if (err instanceof CredentialsError) io.err(`error: ${err.message}`);
    else throw err;
    return 2;
  }
  const paint = (color: Parameters<typeof styleText>[0], s: string) => (io.color ? styleText(color, s) : s);
  const api = (method: string, target: string, body?: unknown, headers?: Record<string, string>): Promise<SignedAnswer> =>
    signedFetch(creds, { method, target, body: body === undefined ? undefined : JSON.stringify(body), headers });

  // A delivery can reach the receiver before the endpoint's answer (and its secret) reaches us.
  let haveSecret: (s: string) => void = () => {};
  const secretKnown = new Promise<string>((resolve) => (haveSecret = resolve));
  let verified = 0;
  let finish: (reason: string) => void = () => {};
  const done = new Promise<string>((resolve) => (finish = resolve));
  const token = randomBytes(16).toString('hex');
  const path = `${LISTEN_PATH}/${token}`;
  // Whatever reaches the port (a client that hangs up mid-body, a slow one, garbage) ends that request, never the listener.
  const server = createServer((req, res) => {
    req.on('error', () => res.destroy());
    receive(req, res).catch(() => res.destroy());
  });
  server.requestTimeout = 15_000;
  server.headersTimeout = 10_000;
  server.maxConnections = 64;
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  }).catch((err: NodeJS.ErrnoException) => {
    io.err(`error: cannot listen on 127.0.0.1:${opts.port} (${err.code ?? err.message})`);
  });
  if (!server.listening) return 2;
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;

  /** Delivery ids answered 200 already: a repeat is reported, not applied or forwarded again. */
  const answered = new Set<string>();

  async function receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refuse = (status: number, text: string) => {
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' }).end(`${text}\n`);
    };
    if (req.url !== path) return refuse(404, 'not here');
    if (req.method === 'GET') {
      // A later run asks whether this receiver is alive (and is this run) before it removes its endpoint.
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`npm run listen ${token}\n`);
      return;
    }
    if (req.method !== 'POST') return refuse(405, 'POST only');
    // Headers first: what cannot be a delivery is refused before its body is read.
    if (!header(req, 'x-service-timestamp') || !header(req, 'x-service-signature')) return refuse(400, 'not a delivery: no X-Service-Timestamp or X-Service-Signature');
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return refuse(413, 'too large');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > MAX_BODY_BYTES) return refuse(413, 'too large');
      chunks.push(c as Buffer);
    }
    const raw = Buffer.concat(chunks);
    const at = new Date();
    const secret = await secretKnown;
    const o = opts as Options;
    const deliveryId = header(req, 'x-service-delivery');
    let event;
    try {
      event = verifyWebhook({ rawBody: raw, headers: req.headers, secret });
    } catch (err) {
      const reason = err instanceof WebhookVerificationError ? `${err.reason}: ${err.message}` : (err as Error).message;
      if (o.json) io.out(JSON.stringify({ received_at: at.toISOString(), verified: false, reason, delivery_id: deliveryId }));
      else io.out(`${time(at)}  ${paint('red', 'REFUSED')}  ${reason}  ${paint('gray', `delivery ${printable((deliveryId ?? '-').slice(0, 200))}`)}`);
      return refuse(400, 'signature not verified');
    }
    if (event.deliveryId !== null && answered.has(event.deliveryId)) {
      // Verified, but answered already: the service does not repeat an answered delivery, so this is a replay.
      if (o.json) io.out(JSON.stringify({ received_at: at.toISOString(), verified: true, repeated: true, delivery_id: event.deliveryId, event: event.event }));
      else io.out(`${time(at)}  ${paint('yellow', 'repeated')}  ${event.event} delivery ${event.deliveryId} was received already: not applied or forwarded again`);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('already received\n');
      return;
    }
    let forwarded: { status: number | null; ms: number; error?: string } | null = null;
    if (o.forwardTo) forwarded = await forward(o.forwardTo, req, raw);
    const status = forwarded ? (forwarded.status !== null && forwarded.status >= 200 && forwarded.status < 300 ? 200 : 502) : 200;
    if (status === 200 && event.deliveryId !== null) answered.add(event.deliveryId);
    verified++;
    if (o.json) {
      io.out(JSON.stringify({ received_at: at.toISOString(), verified: true, delivery_id: event.deliveryId, event: event.event, created_at: event.created_at, data: event.data, ...(forwarded ? { forwarded } : {}) }));
    } else {
      const fwd = forwarded ? `  → ${forwarded.status ?? forwarded.error} from ${o.forwardTo!.href} (${forwarded.ms} ms)` : '';
      io.out(`${time(at)}  ${paint('green', 'verified')}  ${paint('bold', event.event.padEnd(27))} ${summary(event.data)}  ${paint('gray', `delivery ${event.deliveryId ?? '-'}`)}${fwd}`);
    }
    res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok\n' : 'forward failed\n');
    if (o.maxEvents !== null && verified >= o.maxEvents) finish('max-events');
  }

  try {
    await removeLeftovers(api, io);
    const created = await api('POST', '/v2/webhooks', { url, events: opts.events });
    if (created.status !== 201) {
      io.err(`error: registering ${url} was refused: ${created.status} ${errorCodeOf(created) ?? ''} ${(created.json as { error?: string } | null)?.error ?? created.text}`.trim());
      if (errorCodeOf(created) === 'VALIDATION_ERROR') io.err('  (a loopback receiver is allowed by the local sandbox, npm start, only; a deployment in production refuses it)');
      return 1;
    }
    const endpoint = created.json as { id: string; secret: string };
    haveSecret(endpoint.secret);
    const events = opts.events.length === EVENT_NAMES.length ? 'every event' : opts.events.join(', ');
    io.err(
      `Ready: ${events} of ${creds.workspaceId ? `workspace ${creds.workspaceId}` : `key ${creds.keyId}`} (${opts.side} side) will be delivered to ${url} (endpoint ${endpoint.id}); every delivery's signature is verified.${opts.forwardTo ? ` Forwarding to ${opts.forwardTo.href}.` : ''} Ctrl-C stops and removes the endpoint.`,
    );
    try {
      // A stop asked for before the trigger starts skips it; one asked for meanwhile waits for it: what it
      // changed is put back first.
      let stopping = false;
      let triggering = false;
      void stop.then((reason) => {
        stopping = true;
        if (triggering) io.err(`${reason}: stopping once the trigger has finished.`);
      });
      await Promise.resolve();
      if (opts.trigger && !stopping) {
        io.err(`Triggering ${opts.trigger}: ${TRIGGERS[opts.trigger].does}`);
        triggering = true;
        await runTrigger(opts.trigger, { api, creds, env: io.env, log: io.err });
        triggering = false;
      }
      const reason = await Promise.race([stop, done]);
      if (reason !== 'max-events') io.err(`Stopping (${reason}).`);
    } finally {
      await removeEndpoint(api, endpoint.id, io);
    }
    return 0;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    io.err(`error: ${cause ? `${creds.origin} cannot be reached (${cause}); is npm start running?` : (err as Error).message}`);
    return cause ? 3 : 1;
  } finally {
    await closeServer(server);
  }
}

/**
 * How long a stopping run waits for the dispatcher to record the deliveries this receiver has just answered, asking
 * again every half second (signedFetch sends a request refused as a replay again in the next second).
 */
const PENDING_GRACE_MS = 15_000;
const PENDING_RETRY_MS = 500;

/**
 * The endpoint goes. One with a delivery still pending is asked again for a few seconds while this receiver still
 * answers: the pending delivery (an event the trigger just caused, or the one answered last, still being recorded
 * as DELIVERED) completes. It stays active meanwhile, since a deactivated endpoint's deliveries are not sent, so
 * they would stay pending. Still pending after that, it is deactivated and the next run removes it.
 */
async function removeEndpoint(api: (m: string, t: string, b?: unknown) => Promise<SignedAnswer>, id: string, io: ListenIo): Promise<void> {
  const remove = async () => [200, 404].includes((await api('DELETE', `/v2/webhooks/${id}`)).status);
  let removed = await remove();
  const until = Date.now() + PENDING_GRACE_MS;
  while (!removed && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, PENDING_RETRY_MS));
    removed = await remove();
  }
  if (removed) {
    io.err(`Removed endpoint ${id}.`);
    return;
  }
  await api('PATCH', `/v2/webhooks/${id}`, { is_active: false });
  io.err(`Endpoint ${id} has a delivery still pending: deactivated (no new deliveries); the next npm run listen removes it.`);
}

/**
 * Endpoints an earlier run left behind (killed, or stopped with a delivery pending): those at 127.0.0.1 under
 * /npm-run-listen/<token>, removed unless that very run still answers there with its token.
 */
async function removeLeftovers(api: (m: string, t: string, b?: unknown) => Promise<SignedAnswer>, io: ListenIo): Promise<void> {
  const page = await api('GET', '/v2/webhooks?limit=100');
  if (page.status !== 200) return;
  for (const e of (page.json as { data?: { id: string; url: string; is_active: boolean }[] }).data ?? []) {
    let runToken: string | undefined;
    try {
      const u = new URL(e.url);
      runToken = u.hostname === '127.0.0.1' && u.protocol === 'http:' ? LISTEN_URL.exec(u.pathname)?.[1] : undefined;
    } catch {
      runToken = undefined;
    }
    if (runToken === undefined) continue;
    const alive =
      e.is_active &&
      (await fetch(e.url, { signal: AbortSignal.timeout(1000), redirect: 'manual' }).then(
        async (r) => r.ok && (await r.text()) === `npm run listen ${runToken}\n`,
        () => false,
      ));
    if (alive) continue;
    const gone = await api('DELETE', `/v2/webhooks/${e.id}`);
    if (gone.status === 200) io.err(`Removed endpoint ${e.id}, left by an earlier npm run listen.`);
  }
}

async function forward(target: URL, req: IncomingMessage, raw: Buffer): Promise<{ status: number | null; ms: number; error?: string }> {
  const started = performance.now();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === 'string' && (k.startsWith('x-service-') || k === 'content-type' || k === 'user-agent')) headers[k] = v;
  }
  try {
    const res = await fetch(target, { method: 'POST', headers, body: raw, signal: AbortSignal.timeout(10_000), redirect: 'manual' });
    await res.arrayBuffer();
    return { status: res.status, ms: Math.round(performance.now() - started) };
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return { status: null, ms: Math.round(performance.now() - started), error: code };
  }
}

const header = (req: IncomingMessage, name: string): string | null => {
  const v = req.headers[name];
  return typeof v === 'string' ? v : null;
};

const time = (d: Date): string => d.toISOString().slice(11, 19);


/** The resource an event is about, in a few words: its id, amount and asset, status. */
function summary(data: Record<string, unknown>): string {
  const id = ['deposit_id', 'withdrawal_id', 'commitment_id'].map((k) => data[k]).find((v) => typeof v === 'string');
  const kind = typeof data.deposit_id === 'string' ? 'deposit' : typeof data.withdrawal_id === 'string' ? 'withdrawal' : typeof data.commitment_id === 'string' ? 'commitment' : null;
  const parts: string[] = [];
  if (kind && id) parts.push(`${kind} ${String(id)}`);
  if (typeof data.amount === 'string') parts.push(`${data.amount}${typeof data.asset === 'string' ? ` ${data.asset}` : ''}`);
  if (typeof data.status === 'string') parts.push(data.status);
  if (Array.isArray(data.changed)) parts.push(`changed ${data.changed.join(', ')}`);
  if (typeof data.address === 'string' && !kind) parts.push(`${typeof data.chain === 'string' ? `${data.chain} ` : ''}${data.address}`);
  return parts.join('  ') || JSON.stringify(data).slice(0, 80);
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
