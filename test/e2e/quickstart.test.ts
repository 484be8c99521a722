// docs/quickstart.md, executed: a sandbox started as `npm start` starts on a
// developer's machine (no NODE_ENV, no WEBHOOK_ALLOW_PRIVATE), then every
// shell block of the quickstart, in order, through bash and npm as pasted,
// with `npm run listen` in the background as the third terminal. Then the
// integrator's tools at their edges on the same sandbox: `npm run api`
// (errors, replays, --data, --wait-for) and `npm run listen` (forged
// deliveries, forwarding, an endpoint left by a killed run, triggers).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { signWebhook } from '../../src/sdk/webhooks.js';
import { removeDataDir } from '../support/data-dir.js';
import { freePort, freePortBlock } from '../support/free-port.js';
import { call } from '../support/harness.js';
import { poll, spawnEntry, type Spawned } from '../support/processes.js';

interface Block {
  mode: 'run' | 'background' | 'skip';
  code: string;
}

/** The shell blocks of the quickstart, each with what the comment before it says of it. */
export function quickstartBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const re = /(?:<!-- quickstart: ([^>]*?) -->\n)?```sh\n([\s\S]*?)```/g;
  for (const m of markdown.matchAll(re)) {
    const note = m[1] ?? '';
    blocks.push({ mode: note.startsWith('not run') ? 'skip' : note.startsWith('in the background') ? 'background' : 'run', code: m[2]! });
  }
  return blocks;
}

/** A command line as a terminal runs it: its own process group, so a "Ctrl-C" reaches npm and node alike. */
function terminal(script: string, env: NodeJS.ProcessEnv): { child: ChildProcess; out: () => string; err: () => string; done: Promise<number | null> } {
  const child = spawn('bash', ['-c', script], { env, cwd: process.cwd(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  // 'close': every process holding its output has ended (npm's child too, after a Ctrl-C npm may end first).
  const done = once(child, 'close').then(([code]) => code as number | null);
  return { child, out: () => out, err: () => err, done };
}

const ctrlC = (child: ChildProcess) => process.kill(-child.pid!, 'SIGINT');

let dataDir: string;
let env: NodeJS.ProcessEnv;
let port: number;
let sandbox: Spawned | undefined;
let key: { keyId: string; secret: string };
const base = () => `http://127.0.0.1:${port}`;
const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => {
  const t = terminal(`npm run -s api -- ${args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`, { ...env, ...extra });
  return t.done.then((code) => ({ code, stdout: t.out(), stderr: t.err() }));
};
/** The workspace's endpoints. The tools sign the same GET with the same key: one in the same second is a replay, sent again. */
const endpoints = async (): Promise<{ id: string; url: string; is_active: boolean }[]> => {
  for (;;) {
    const res = await call(base(), key, { path: '/v2/webhooks?limit=100' });
    if (res.status === 200) return res.body.data;
    expect(res.body.code).toBe('REPLAY_DETECTED');
    await new Promise((r) => setTimeout(r, 1100));
  }
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wallet-e2e-quickstart-'));
  port = await freePortBlock(7);
  // A developer's terminal: no NODE_ENV (vitest sets "test"), no webhook setting; its log lines for a person
  // (what a TTY gets; LOG_FORMAT=pretty asks for it through a pipe).
  const { DATABASE_URL: _u, EMBEDDED_PG_PORT: _p, NODE_ENV: _n, WEBHOOK_ALLOW_PRIVATE: _w, ...clean } = process.env;
  env = { ...clean, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
  // Through tsx, as `npm start` runs it (the other files start the run's transpiled tree).
  sandbox = spawnEntry('src/bootstrap/start.ts', { ...env, LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' }, [], { tsx: true });
  await sandbox.waitFor(/workspace: .*made now/, 120_000);
  const ws = JSON.parse(readFileSync(join(dataDir, 'workspace.json'), 'utf8')) as { test_key: { key_id: string; secret: string } };
  key = { keyId: ws.test_key.key_id, secret: ws.test_key.secret };
}, 180_000);

afterAll(async () => {
  if (sandbox && sandbox.child.exitCode === null) {
    sandbox.child.kill('SIGTERM');
    await sandbox.exit();
  }
  removeDataDir(dataDir);
});

describe('npm start for a person', () => {
  it('prints readable log lines, not JSON, the request lines naming their route', () => {
    const lines = sandbox!.output().split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: api: api listening \{"url":"http:\/\/127\.0\.0\.1:\d+"/));
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: chain-worker: scanning for deposits/));
    expect(lines.filter((l) => l.startsWith('{"level"'))).toEqual([]);
  });
});

describe('docs/quickstart.md, executed', () => {
  it('runs every block as pasted: a verified DEPOSIT_CONFIRMED and a CONFIRMED withdrawal, and again with nothing changed; Ctrl-C removes the endpoint', async () => {
    const blocks = quickstartBlocks(readFileSync('docs/quickstart.md', 'utf8'));
    expect(blocks.map((b) => b.mode)).toEqual(['skip', 'run', 'background', 'run', 'run', 'run', 'run']);
    expect(blocks[0]!.code).toContain('npm start');
    const first = blocks.findIndex((b) => b.mode === 'background');
    const before = blocks.slice(0, first).filter((b) => b.mode === 'run');
    const after = blocks.slice(first + 1).filter((b) => b.mode === 'run');
    for (const b of before) {
      const t = terminal(`set -euo pipefail\n${b.code}`, env);
      expect(await t.done, t.err()).toBe(0);
      expect(t.out()).toContain('ETH_TESTNET');
    }

    const listen = terminal(blocks[first]!.code, env);
    onTestFinished(() => {
      try {
        process.kill(-listen.child.pid!, 'SIGKILL');
      } catch {
        /* stopped already */
      }
    });
    await poll(async () => (/Ready: /.test(listen.err()) ? true : undefined), 60_000, 'npm run listen to be ready');
    const [registered] = await endpoints();
    expect(registered!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/npm-run-listen\/[0-9a-f]{32}$/);

    // The rest, as one terminal: the variables of one block are used by the next. Each run prints the customer.
    const script = `set -euo pipefail\n${after.map((b) => b.code).join('\n')}\necho "customer=$CUSTOMER withdrawal=$WITHDRAWAL"\n`;
    const pasted = terminal(script, env);
    expect(await pasted.done, `${pasted.out()}\n${pasted.err()}`).toBe(0);
    const ids = /customer=(\S+) withdrawal=(\S+)/.exec(pasted.out())!;
    expect(pasted.out()).toMatch(/"status": "CONFIRMED"/);
    expect(pasted.err()).toMatch(/^201 Created · request \S+ · Idempotency-Key signup-user-42$/m);
    // 100 deposited less its fee (3), less the withdrawal's 20 (its fee inside): as the quickstart says.
    const balances = (await call(base(), key, { path: '/v2/balances?asset=USDT_ETH' })).body as { data: { asset: string; chain: string; available: string; total: string }[] };
    expect(balances.data).toEqual([expect.objectContaining({ chain: 'ETH_TESTNET', asset: 'USDT_ETH', available: '77.000000', total: '77.000000' })]);

    await poll(async () => (/verified\s+WITHDRAWAL_CONFIRMED/.test(listen.out()) ? true : undefined), 30_000, 'WITHDRAWAL_CONFIRMED at the listener');
    for (const event of ['DEPOSIT_DETECTED', 'DEPOSIT_CONFIRMED', 'DEPOSIT_SWEPT', 'WITHDRAWAL_PROCESSING', 'WITHDRAWAL_CONFIRMED']) {
      expect(listen.out()).toMatch(new RegExp(`verified\\s+${event}\\s`));
    }
    expect(listen.out()).not.toContain('REFUSED');

    // Pasted again: the same customer and withdrawal (idempotent creates), a second drip swept, exit 0.
    const again = terminal(script, env);
    expect(await again.done, `${again.out()}\n${again.err()}`).toBe(0);
    expect(/customer=(\S+) withdrawal=(\S+)/.exec(again.out())!.slice(1)).toEqual(ids.slice(1));
    expect(again.err()).toMatch(/· replayed$/m);

    // Ctrl-C reaches npm and the listener alike, as in a terminal; the listener removes its endpoint before it ends.
    ctrlC(listen.child);
    await listen.done;
    expect(listen.err()).toContain('Stopping (Ctrl-C).');
    expect(listen.err()).toContain(`Removed endpoint ${registered!.id}.`);
    expect(await endpoints()).toEqual([]);
  }, 300_000);
});

describe('the other copies of these commands', () => {
  it("the README's First requests are the quickstart's commands, so the quickstart's run covers them", () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('## First requests'), readme.indexOf('## Using the SDK'));
    const quickstart = readFileSync('docs/quickstart.md', 'utf8');
    const lines = quickstartBlocks(section).flatMap((b) => b.code.split('\n').filter(Boolean));
    expect(lines.length).toBeGreaterThanOrEqual(9);
    for (const line of lines) expect(quickstart, line).toContain(line);
  });

  it("the curl and openssl signing of docs/api.md works as pasted: the GET answers, the POST creates then replays", async () => {
    const api = readFileSync('docs/api.md', 'utf8');
    const section = api.slice(api.indexOf('### Signing with curl and openssl'), api.indexOf('### Time window and replays'));
    const [get, post] = quickstartBlocks(section);
    const t = terminal(`set -euo pipefail\n${get!.code}\necho\n${post!.code}\necho\nsleep 1\n${post!.code.replace('curl -s', 'curl -s -i')}\n`, env);
    expect(await t.done, t.err()).toBe(0);
    const [chains, created] = t.out().split('\n');
    expect((JSON.parse(chains!) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    expect(JSON.parse(created!).external_ref).toBe('user-42');
    expect(t.out()).toMatch(/idempotent-replay: true/i);
  }, 60_000);
});

describe('npm run api', () => {
  it('prints the status and request id on stderr and the JSON on stdout; an error answer exits 1 with its code; a bad command line exits 2 and sends nothing', async () => {
    const ok = await run(['GET', 'chains']);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/^200 OK · request [\w-]+\n$/);
    expect((JSON.parse(ok.stdout) as { data: unknown[] }).data.length).toBeGreaterThan(0);

    const missing = await run(['GET', '/v2/withdrawals/00000000-0000-4000-8000-000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^404 Not Found · request /);
    expect(JSON.parse(missing.stdout).code).toBe('NOT_FOUND');

    const lowercase = await run(['POST', '/v2/withdrawals', 'chain=ETH', 'asset=USDT_ETH', 'amount=1', 'destination_address=0xabcdefabcdefabcdefabcdefabcdefabcdefabcd']);
    expect(lowercase.code).toBe(1);
    expect(JSON.parse(lowercase.stdout).error).toMatch(/checksum/i);

    for (const [args, message] of [
      [['FETCH', '/v2/chains'], /METHOD: FETCH is not one of/],
      [['GET'], /give a METHOD and a PATH/],
      [['POST', '/v2/customers', 'external_ref'], /fields are name=value/],
      [['POST', '/v2/customers', '--data', '{nope'], /--data: not JSON \(5 bytes\)$/],
      [['GET', '/v2/chains', '--bogus'], /Unknown option '--bogus'/],
      [['POST', '/v2/customers', '--wait-for', 'ACTIVE'], /--wait-for repeats a GET only/],
    ] as const) {
      const bad = await run([...args]);
      expect([bad.code, bad.stdout], args.join(' ')).toEqual([2, '']);
      expect(bad.stderr.split('\n')[0]).toMatch(message);
      expect(bad.stderr).toContain('usage: npm run api');
    }
    const help = await run(['--help']);
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('usage: npm run api')]);
    const nowhere = await run(['GET', '/v2/chains'], { WALLET_API_URL: `http://127.0.0.1:${await freePort()}` });
    expect(nowhere.code).toBe(3);
    expect(nowhere.stderr).toMatch(/cannot be reached \(ECONNREFUSED\)/);
  }, 60_000);

  it('never follows a redirect: the signed request is not resent to the host it names', async () => {
    let elsewhere = 0;
    const other = createServer((_req, res) => (elsewhere++, res.writeHead(200).end('{}')));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    const redirecting = createServer((req, res) => res.writeHead(307, { location: `http://127.0.0.1:${(other.address() as AddressInfo).port}${req.url}` }).end());
    await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', () => r()));
    try {
      const r = await run(['POST', '/v2/customers', 'external_ref=redirected'], { WALLET_API_URL: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/v2` });
      expect([r.code, r.stdout]).toEqual([1, '']);
      expect(r.stderr).toMatch(/answered 307 \(a redirect to http:\/\/127\.0\.0\.1:\d+\/v2\/customers\), not followed/);
      expect(elsewhere).toBe(0);
    } finally {
      other.close();
      redirecting.close();
    }
  }, 60_000);

  it('sends a body from a file, and the same signed request twice in one second is sent again in the next instead of failing as a replay', async () => {
    const file = join(dataDir, 'customer.json');
    writeFileSync(file, JSON.stringify({ external_ref: 'from-a-file' }));
    const created = await run(['POST', '/v2/customers', '--data', `@${file}`, '--idempotency-key', 'file-1', '--get', 'external_ref']);
    expect([created.code, created.stdout]).toEqual([0, 'from-a-file\n']);
    // Both in the same second: one of them meets REPLAY_DETECTED and is signed again a second later.
    const twice = await Promise.all([run(['GET', '/v2/balances']), run(['GET', '/v2/balances'])]);
    expect(twice.map((t) => t.code)).toEqual([0, 0]);
  }, 60_000);
});

describe('npm run listen', () => {
  const listening = async (args: string[]) => {
    const t = terminal(`exec npm run -s listen -- ${args.join(' ')}`, env);
    await poll(async () => (/Ready: /.test(t.err()) ? true : t.child.exitCode !== null ? false : undefined), 60_000, 'listen ready');
    const url = /delivered to (\S+) /.exec(t.err())?.[1];
    return { ...t, url: url! };
  };

  it('refuses a delivery whose signature does not verify, forwards verified ones with their own headers, and prints JSON with --json', async () => {
    const got: { headers: IncomingHttpHeaders; body: string }[] = [];
    const target = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
    const forwardTo = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hooks`;
    const t = await listening(['--json', '--forward-to', forwardTo, '--trigger', 'DEPOSIT_CONFIRMED', '--events', 'DEPOSIT_CONFIRMED']);
    try {
      const body = JSON.stringify({ event: 'DEPOSIT_CONFIRMED', created_at: new Date().toISOString(), data: {} });
      const timestamp = Math.floor(Date.now() / 1000);
      const forged = await fetch(t.url, {
        method: 'POST',
        body,
        headers: { 'x-service-timestamp': String(timestamp), 'x-service-signature': signWebhook({ secret: 'whsec_not-the-endpoints', timestamp, rawBody: body }), 'x-service-delivery': 'forged-1' },
      });
      expect(forged.status).toBe(400);
      const lines = await poll(async () => {
        const l = t.out().trim().split('\n').filter(Boolean).map((s) => JSON.parse(s) as Record<string, unknown>);
        return l.some((x) => x.verified === true) ? l : undefined;
      }, 60_000, 'the triggered DEPOSIT_CONFIRMED');
      expect(lines.find((x) => x.delivery_id === 'forged-1')).toMatchObject({ verified: false, reason: expect.stringMatching(/^SIGNATURE_MISMATCH/) });
      const real = lines.find((x) => x.verified === true)!;
      expect(real).toMatchObject({ event: 'DEPOSIT_CONFIRMED', data: { status: 'CONFIRMED', amount: '25.000000', asset: 'USDT_ETH' }, forwarded: { status: 204 } });
      // The forward carries the delivery as the service sent it: its body and its own signature headers.
      const passed = got.find((g) => g.headers['x-service-delivery'] === real.delivery_id)!;
      expect(JSON.parse(passed.body).event).toBe('DEPOSIT_CONFIRMED');
      expect(passed.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(got.some((g) => g.headers['x-service-delivery'] === 'forged-1')).toBe(false);
      // That delivery sent to the listener again (a replay: the service never repeats an answered one): reported, not forwarded again.
      const replayHeaders = Object.fromEntries(Object.entries(passed.headers).filter(([k]) => k.startsWith('x-service-')).map(([k, v]) => [k, String(v)]));
      const replay = await fetch(t.url, { method: 'POST', body: passed.body, headers: replayHeaders });
      expect([replay.status, await replay.text()]).toEqual([200, 'already received\n']);
      await poll(async () => (t.out().includes('"repeated":true') ? true : undefined), 5_000, 'the repeat reported');
      expect(got.filter((g) => g.headers['x-service-delivery'] === real.delivery_id)).toHaveLength(1);
    } finally {
      ctrlC(t.child);
      await t.done;
      target.close();
    }
    expect(await endpoints()).toEqual([]);
  }, 120_000);

  it('removes an endpoint a killed run left behind, and stops by itself after --max-events', async () => {
    const killed = await listening([]);
    process.kill(-killed.child.pid!, 'SIGKILL');
    await killed.done;
    const [left] = await endpoints();
    expect(left!.url).toBe(killed.url);

    const t = terminal('exec npm run -s listen -- --trigger WITHDRAWAL_POLICY_CHANGED --events WITHDRAWAL_POLICY_CHANGED --max-events 2', env);
    expect(await t.done, t.err()).toBe(0);
    expect(t.err()).toContain(`Removed endpoint ${left!.id}, left by an earlier npm run listen.`);
    expect(t.out().match(/verified\s+WITHDRAWAL_POLICY_CHANGED\s+changed approval_quorum/g)).toHaveLength(2);
    expect(await endpoints()).toEqual([]);
  }, 120_000);

  it('a Ctrl-C while the policy trigger runs lets it finish: the quorum it moved is put back', async () => {
    const workspace = (JSON.parse(readFileSync(join(dataDir, 'workspace.json'), 'utf8')) as { workspace_id: string }).workspace_id;
    const quorum = async () => {
      const shown = terminal(`exec npm run -s ops -- policy show --workspace ${workspace} --json`, env);
      expect(await shown.done, shown.err()).toBe(0);
      return (JSON.parse(shown.out()) as { policy: { approval_quorum: number } }).policy.approval_quorum;
    };
    const before = await quorum();
    const t = terminal('exec npm run -s listen -- --trigger WITHDRAWAL_POLICY_CHANGED --events WITHDRAWAL_POLICY_CHANGED', env);
    // The first event is the quorum moved; the command that puts it back runs for seconds after it.
    await poll(async () => (/verified\s+WITHDRAWAL_POLICY_CHANGED/.test(t.out()) ? true : undefined), 60_000, 'the first event');
    ctrlC(t.child);
    await t.done;
    expect(t.err()).not.toContain('Trigger failed');
    expect(t.err()).toMatch(new RegExp(`Approval quorum set to \\d+ and back to ${before}`));
    expect(await quorum()).toBe(before);
    expect(await endpoints()).toEqual([]);
  }, 120_000);

  it('outlasts hostile local clients: a body cut short, an oversized one, no delivery headers, a replayed delivery; keeps endpoints it did not make', async () => {
    // An endpoint of the integrator's own that merely looks like a listener's: never removed.
    const own = await call(base(), key, { method: 'POST', path: '/v2/webhooks', body: JSON.stringify({ url: 'http://127.0.0.1:9/npm-run-listen', events: ['DEPOSIT_SWEPT'] }) });
    expect(own.status).toBe(201);
    const t = await listening(['--json', '--trigger', 'DEPOSIT_CONFIRMED', '--events', 'DEPOSIT_CONFIRMED']);
    try {
      const { hostname, port: p } = new URL(t.url);
      // Hangs up in the middle of its body.
      const { connect } = await import('node:net');
      await new Promise<void>((resolve) => {
        const s = connect(Number(p), hostname, () => {
          s.write(`POST ${new URL(t.url).pathname} HTTP/1.1\r\nHost: x\r\nX-Service-Timestamp: 1\r\nX-Service-Signature: sha256=00\r\nContent-Length: 100\r\n\r\n0123456789`);
          setTimeout(() => (s.destroy(), resolve()), 200);
        });
      });
      const headers = { 'x-service-timestamp': String(Math.floor(Date.now() / 1000)), 'x-service-signature': `sha256=${'0'.repeat(64)}` };
      expect((await fetch(t.url, { method: 'POST', body: 'x'.repeat(300 * 1024), headers })).status).toBe(413);
      expect((await fetch(t.url, { method: 'POST', body: '{}' })).status).toBe(400);
      expect((await fetch(t.url.replace(/[0-9a-f]{32}$/, 'f'.repeat(32)), { method: 'POST', body: '{}', headers })).status).toBe(404);
      // Still listening: the triggered deposit arrives, verified.
      const real = await poll(async () => {
        const l = t.out().trim().split('\n').filter(Boolean).map((x) => JSON.parse(x) as Record<string, unknown>);
        return l.find((x) => x.verified === true && x.event === 'DEPOSIT_CONFIRMED');
      }, 60_000, 'the triggered DEPOSIT_CONFIRMED');
      expect(real.repeated).toBeUndefined();
      const deliveries = await call(base(), key, { path: `/v2/webhooks/${(await endpoints()).find((e) => e.url === t.url)!.id}/deliveries` });
      expect(deliveries.body.data[0]).toMatchObject({ id: real.delivery_id, status: 'DELIVERED' });
    } finally {
      ctrlC(t.child);
      await t.done;
    }
    expect((await endpoints()).map((e) => e.id)).toEqual([own.body.id]);
    expect((await call(base(), key, { method: 'DELETE', path: `/v2/webhooks/${own.body.id}` })).status).toBe(200);
  }, 120_000);

  it('refuses a command line it cannot honour, in one line and its usage, exit 2', async () => {
    for (const [args, message] of [
      [['--events', 'NOPE'], /--events: NOPE is not an event/],
      [['--trigger', 'DEPOSIT_SWEPT'], /--trigger: one of DEPOSIT_CONFIRMED, WITHDRAWAL_POLICY_CHANGED/],
      [['--forward-to', 'ftp://x'], /--forward-to: must be an http or https URL/],
      [['--trigger', 'DEPOSIT_CONFIRMED', '--events', 'WITHDRAWAL_HELD'], /none of which --events asks for/],
    ] as const) {
      const t = terminal(`exec npm run -s listen -- ${args.join(' ')}`, env);
      expect(await t.done).toBe(2);
      expect(t.err().split('\n')[0]).toMatch(message);
      expect(t.err()).toContain('usage: npm run listen');
    }
  }, 60_000);
});
