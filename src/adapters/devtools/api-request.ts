// `npm run api -- METHOD PATH [field=value …] [--data JSON|@file|@-]
// [--idempotency-key K]`: one signed request to the API, as an integrator
// would send it (docs/quickstart.md). The status line (status, request id,
// the Idempotency-Key sent) goes to stderr, the answer's JSON to stdout, so
// the output pipes into `node -p` or jq. Exit 0 on a 2xx, 1 on an error
// answer, 2 on a command line it cannot send, 3 when the API cannot be
// reached.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { printable } from './terminal-text.js';
import { CredentialsError, loadCredentials } from './credentials.js';
import { signedFetch, type SignedAnswer } from './signed-fetch.js';

export const API_USAGE = [
  'usage: npm run api -- METHOD PATH [field=value ...] [field:=json ...] [--data JSON | --data @file | --data @-] [--idempotency-key KEY] [--live]',
  '',
  '  METHOD             GET, POST, PATCH or DELETE',
  '  PATH               /v2/balances, or balances (the /v2 is added); a query string is signed as given',
  '  field=value        a string field of the JSON body (amounts are strings too): chain=ETH amount=20',
  '  field:=json        a field given as JSON: assets:=\'[{"symbol":"USDT_ETH","amount":"100"}]\'',
  '  --data             the whole body: JSON text, @file.json, or @- for stdin (not with fields)',
  '  --idempotency-key  the key of a POST; without it a new one is made and shown (send it again to retry safely)',
  '  --live             sign with the workspace file\'s live key instead of its test key',
  '  --get FIELD        print only this field of the answer (e.g. id, address, data.0.status) instead of the JSON',
  '  --wait-for [F=]V   a GET, repeated about once a second until FIELD (status unless named) is V: --wait-for CONFIRMED',
  '  --timeout S        how long --wait-for waits, in seconds (default 120)',
  '',
  'The key: WALLET_KEY_ID and WALLET_SECRET, else the sandbox workspace file DATA_DIR/workspace.json (.data/workspace.json).',
  'The API: WALLET_API_URL (e.g. https://wallet.example.com/v2), else http://127.0.0.1:$PORT (8080).',
  'Prints the status and the request id on stderr and the JSON answer on stdout.',
  'Exits 0 on success, 1 on an error answer (or a --wait-for that ends without its value), 2 on a bad command line or no key, 3 when the API cannot be reached.',
].join('\n');

export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
  readStdin: () => string;
  readFile: (path: string) => string;
  env: NodeJS.ProcessEnv;
}

export const processIo = (): CliIo => ({
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
  readStdin: () => readFileSync(0, 'utf8'),
  readFile: (path) => readFileSync(path, 'utf8'),
  env: process.env,
});

class UsageError extends Error {}

const METHODS = new Set(['GET', 'POST', 'PATCH', 'DELETE']);

interface Planned {
  method: string;
  target: string;
  body: string;
  idempotencyKey: string | null;
  generatedKey: boolean;
  side: 'test' | 'live';
  get: string | null;
  waitFor: { field: string; value: string; timeoutMs: number } | null;
}

/** The request a command line asks for, or UsageError naming what is wrong. */
export function planRequest(argv: string[], io: Pick<CliIo, 'readStdin' | 'readFile'>): Planned {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        data: { type: 'string' },
        'idempotency-key': { type: 'string' },
        live: { type: 'boolean' },
        get: { type: 'string' },
        'wait-for': { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [methodWord, pathWord, ...fields] = positionals;
  if (!methodWord || !pathWord) throw new UsageError('give a METHOD and a PATH, e.g. GET /v2/balances');
  const method = methodWord.toUpperCase();
  if (!METHODS.has(method)) throw new UsageError(`METHOD: ${methodWord} is not one of GET, POST, PATCH, DELETE`);
  if (/[\s#]/.test(pathWord)) throw new UsageError(`PATH: ${pathWord} holds a space or a #; encode it (%20)`);
  const path = pathWord.startsWith('/v2/') || pathWord === '/v2' ? pathWord : `/v2/${pathWord.replace(/^\/+/, '')}`;
  // The target as fetch will send it (percent-encoding normalised), so the signature covers those very bytes.
  const url = new URL(path, 'http://placeholder');
  const target = `${url.pathname}${url.search}`;

  let body = '';
  if (values.data !== undefined && fields.length > 0) throw new UsageError('give the body as --data or as fields, not both');
  if (values.data !== undefined) {
    const d = values.data;
    body = d === '@-' ? io.readStdin() : d.startsWith('@') ? readOrFail(io, d.slice(1)) : d;
    try {
      JSON.parse(body);
    } catch {
      // Never echoed: a file given by mistake may hold a secret (or terminal escape sequences).
      throw new UsageError(`--data: not JSON (${Buffer.byteLength(body)} bytes${values.data.startsWith('@') ? ` read from ${values.data.slice(1)}` : ''})`);
    }
  } else if (fields.length > 0) {
    body = JSON.stringify(bodyOfFields(fields));
  }
  if (body && (method === 'GET' || method === 'DELETE')) throw new UsageError(`${method} sends no body`);

  let waitFor: Planned['waitFor'] = null;
  if (values['wait-for'] !== undefined) {
    if (method !== 'GET') throw new UsageError('--wait-for repeats a GET only');
    const m = /^(?:([\w.]+)=)?(.+)$/.exec(values['wait-for']);
    if (!m) throw new UsageError('--wait-for: [FIELD=]VALUE, e.g. CONFIRMED or data.0.status=SWEPT');
    const seconds = values.timeout === undefined ? 120 : Number(values.timeout);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600) throw new UsageError('--timeout: whole seconds from 1 to 3600');
    waitFor = { field: m[1] ?? 'status', value: m[2]!, timeoutMs: seconds * 1000 };
  } else if (values.timeout !== undefined) {
    throw new UsageError('--timeout goes with --wait-for');
  }
  const given = values['idempotency-key'];
  const generated = method === 'POST' && given === undefined;
  return {
    method,
    target,
    body,
    idempotencyKey: given ?? (generated ? randomUUID() : null),
    generatedKey: generated,
    side: values.live ? 'live' : 'test',
    get: values.get ?? null,
    waitFor,
  };
}


/** A dotted path into JSON: `data.0.status`. */
export function fieldOf(json: unknown, path: string): unknown {
  let at: unknown = json;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** Statuses that end a resource's life in failure: waiting past one of them is waiting forever. */
const FAILED = new Set(['FAILED', 'CANCELLED', 'REJECTED', 'REVERTED', 'EXPIRED']);
/** The order resources move in: a wait for one status is met by a later one (a deposit already SWEPT was CONFIRMED). */
const PROGRESS = ['QUEUED', 'PENDING', 'PENDING_APPROVAL', 'DETECTED', 'PROCESSING', 'SENT', 'CONFIRMED', 'SWEPT', 'COMPLETED'];
const passed = (now: unknown, wanted: string): boolean =>
  typeof now === 'string' && PROGRESS.includes(wanted) && PROGRESS.indexOf(now) > PROGRESS.indexOf(wanted);

function readOrFail(io: Pick<CliIo, 'readFile'>, path: string): string {
  try {
    return io.readFile(path);
  } catch (err) {
    throw new UsageError(`--data: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/** `a=b` (a string) and `a:=json` fields as one JSON object. */
function bodyOfFields(fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = /^([A-Za-z_][\w.-]*):=(.*)$/s.exec(f);
    const text = /^([A-Za-z_][\w.-]*)=(.*)$/s.exec(f);
    if (raw) {
      try {
        out[raw[1]!] = JSON.parse(raw[2]!);
      } catch {
        throw new UsageError(`${raw[1]}:= must be followed by JSON (${raw[2]})`);
      }
    } else if (text) {
      out[text[1]!] = text[2]!;
    } else {
      throw new UsageError(`unexpected argument ${f}: fields are name=value or name:=json`);
    }
  }
  return out;
}

/** Runs one command line; returns the exit code. */
export async function runApiRequest(argv: string[], io: CliIo, fetchImpl: typeof fetch = fetch): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h') || argv.length === 0) {
    (argv.length === 0 ? io.err : io.out)(API_USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  let plan: Planned;
  let creds;
  try {
    plan = planRequest(argv, io);
    creds = loadCredentials(io.env, plan.side);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`error: ${err.message}\n\n${API_USAGE}`);
      return 2;
    }
    if (err instanceof CredentialsError) {
      io.err(`error: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const headers: Record<string, string> = plan.idempotencyKey ? { 'idempotency-key': plan.idempotencyKey } : {};
  const send = () => signedFetch(creds, { method: plan.method, target: plan.target, body: plan.body, headers }, fetchImpl);
  let res: SignedAnswer;
  try {
    res = await send();
    if (plan.waitFor) res = await waitUntil(plan.waitFor, res, send, io);
  } catch (err) {
    if (err instanceof WaitError) {
      io.err(`error: ${err.message}`);
      return 1;
    }
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    io.err(`error: ${creds.origin} cannot be reached (${cause}); is npm start running? (another PORT? set PORT or WALLET_API_URL)`);
    return 3;
  }
  if (res.status >= 300 && res.status < 400) {
    io.err(`error: ${creds.origin} answered ${res.status} (a redirect${res.headers.get('location') ? ` to ${printable(res.headers.get('location')!)}` : ''}), not followed: a signed request goes only to the API it was signed for; check WALLET_API_URL`);
    return 1;
  }
  const parts = [`${res.status} ${res.statusText || ''}`.trim(), `request ${res.headers.get('x-request-id') ?? '-'}`];
  if (plan.idempotencyKey) parts.push(`Idempotency-Key ${plan.idempotencyKey}${plan.generatedKey ? ' (made for this request)' : ''}`);
  if (res.headers.get('idempotent-replay') === 'true') parts.push('replayed');
  io.err(parts.join(' · '));
  const ok = res.status >= 200 && res.status < 300;
  if (plan.get !== null && ok) {
    const value = fieldOf(res.json, plan.get);
    if (value === undefined) {
      io.err(`error: the answer has no field ${plan.get}`);
      return 1;
    }
    io.out(typeof value === 'string' ? printable(value, { lines: true }) : JSON.stringify(value));
  } else if (res.text) {
    io.out(res.json === null ? printable(res.text, { lines: true }) : JSON.stringify(res.json, null, 2));
  }
  return ok ? 0 : 1;
}

class WaitError extends Error {}

/** Repeats the GET (never twice in one second: that would be a replay) until the field has the value. */
async function waitUntil(want: NonNullable<Planned['waitFor']>, first: SignedAnswer, send: () => Promise<SignedAnswer>, io: CliIo): Promise<SignedAnswer> {
  const deadline = Date.now() + want.timeoutMs;
  let res = first;
  let last: unknown = Symbol('none');
  for (;;) {
    if (res.status < 200 || res.status >= 300) return res;
    const now = fieldOf(res.json, want.field);
    if (String(now) === want.value) return res;
    if (passed(now, want.value)) {
      io.err(`${want.field} is ${String(now)}, past ${want.value}`);
      return res;
    }
    if (now !== last) io.err(`waiting for ${want.field} ${want.value}: now ${now === undefined ? '(none yet)' : String(now)}`);
    last = now;
    if (typeof now === 'string' && FAILED.has(now)) throw new WaitError(`${want.field} is ${now}, which it never leaves: it will not become ${want.value}`);
    if (Date.now() > deadline) throw new WaitError(`${want.field} is still ${String(now)} after ${want.timeoutMs / 1000} s, not ${want.value}`);
    await new Promise((r) => setTimeout(r, 1100));
    res = await send();
  }
}
