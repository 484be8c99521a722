// `npm start` end to end: the supervisor, the embedded PostgreSQL, the three
// processes, the ops CLI and a signed request over real HTTP.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePortBlock } from '../support/free-port.js';
import { call } from '../support/harness.js';
import { poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { removeDataDir } from '../support/data-dir.js';

const SEED = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
let dataDir: string;
let env: NodeJS.ProcessEnv;
let port: number;
let sandbox: Spawned | undefined;
let workspace: { workspace_id: string; live_key: { key_id: string; secret: string }; test_key: { key_id: string; secret: string } };

const base = () => `http://127.0.0.1:${port}`;
/** The test key made by running the banner's command. */
let pasted: { keyId: string; secret: string };
const testKey = () => ({ keyId: workspace.test_key.key_id, secret: workspace.test_key.secret });
const health = async (p: number) => (await (await fetch(`http://127.0.0.1:${p}/healthz`)).json()) as { pid: number };

/** /readyz of api, chain-worker and dispatcher at the moment the banner appeared (0: not answering). */
let readyAtBanner: number[] = [];

async function startSandbox(): Promise<Spawned> {
  const s = spawnEntry('src/bootstrap/start.ts', env);
  await s.waitFor(/API base URL:\s+http:\/\/127\.0\.0\.1:\d+\/v2/, 90_000);
  readyAtBanner = await Promise.all(
    [port, port + 1, port + 2].map((p) => fetch(`http://127.0.0.1:${p}/readyz`).then((r) => r.status, () => 0)),
  );
  return s;
}

async function stopSandbox(s: Spawned): Promise<{ code: number | null; ms: number }> {
  const started = Date.now();
  s.child.kill('SIGTERM');
  const { code } = await s.exit();
  return { code, ms: Date.now() - started };
}

beforeAll(async () => {
  // A DATA_DIR that is not there yet: npm start makes it.
  dataDir = join(mkdtempSync(join(tmpdir(), 'wallet-e2e-')), 'data');
  port = await freePortBlock(7);
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  // No EMBEDDED_PG_PORT: the sandbox picks a free port and remembers it in DATA_DIR.
  const { EMBEDDED_PG_PORT: _p, ...clean } = rest;
  env = { ...clean, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
  // The ports after PORT belong to the workers; make sure they are free too.
  sandbox = await startSandbox();
}, 120_000);

afterAll(async () => {
  if (sandbox && sandbox.child.exitCode === null) await stopSandbox(sandbox);
  removeDataDir(dataDir);
  rmSync(dirname(dataDir), { recursive: true, force: true });
});

describe('npm start (local sandbox)', () => {
  it('prints the API base URL only once all three processes are ready', () => {
    expect(readyAtBanner).toEqual([200, 200, 200]);
  });

  it('keeps its data private: DATA_DIR made 0700, the database password random and kept with the secrets, the well-known one refused', async () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'secrets')).mode & 0o777).toBe(0o700);
    const passwordFile = join(dataDir, 'secrets', 'postgres.password');
    expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'postgres.port')).mode & 0o777).toBe(0o600);
    const password = readFileSync(passwordFile, 'utf8').trim();
    expect(password).toMatch(/^[\w-]{32}$/);
    const pgPort = Number(readFileSync(join(dataDir, 'postgres.port'), 'utf8').trim());
    const login = async (pw: string) => {
      const client = new pg.Client({ host: '127.0.0.1', port: pgPort, user: 'postgres', password: pw, database: 'wallet' });
      try {
        await client.connect();
        return (await client.query<{ ok: number }>('select 1 as ok')).rows[0]!.ok;
      } catch (err) {
        return (err as { code?: string }).code;
      } finally {
        await client.end().catch(() => undefined);
      }
    };
    expect(await login('postgres')).toBe('28P01'); // password authentication failed
    expect(await login(password)).toBe(1);
    // The banner names where the password is, never the password.
    expect(sandbox!.output()).toContain(`postgres://postgres:***@127.0.0.1:${pgPort}/wallet (password in ${passwordFile})`);
    expect(sandbox!.output()).not.toContain(password);
  });

  it('makes its own workspace the first time: the keys in DATA_DIR/workspace.json (0600), never on the terminal; they work', async () => {
    const saved = join(dataDir, 'workspace.json');
    const ws = JSON.parse(readFileSync(saved, 'utf8')) as typeof workspace;
    expect(statSync(saved).mode & 0o777).toBe(0o600);
    expect(sandbox!.output()).toContain(`workspace:     ${ws.workspace_id} (made now), its test and live keys in ${saved}`);
    expect(sandbox!.output()).not.toContain(ws.test_key.secret);
    expect(sandbox!.output()).not.toContain(ws.live_key.secret);
    pasted = { keyId: ws.test_key.key_id, secret: ws.test_key.secret };
    const res = await call(base(), pasted, { path: '/v2/chains?pasted=1' });
    expect(res.status).toBe(200);
    // The owner's invitation names that workspace: pasted into a fresh shell as printed, it works.
    const command = /To sign in as the workspace owner.*\n\s+(.+)\n/.exec(sandbox!.output())?.[1];
    expect(command).toContain(`--workspace ${ws.workspace_id}`);
    const { DATA_DIR: _d, PORT: _p, DATABASE_URL: _u, ...bare } = process.env;
    const shell = spawn('bash', ['-c', command!], { env: bare, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    shell.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const [code] = await once(shell, 'exit');
    expect(code).toBe(0);
    expect(out).toMatch(/\/dashboard\/invitations\//);
    expect(readFileSync(join(dataDir, 'postgres.port'), 'utf8').trim()).toMatch(/^\d+$/);
  }, 60_000);

  it('refuses a second start on the same PORT, or on the same DATA_DIR, in one line, and starts nothing', async () => {
    // Another DATA_DIR (not there yet) on the same PORT: the port is named, and the directory is not made.
    const secondDir = join(tmpdir(), `wallet-e2e-2-${process.pid}`);
    const samePort = spawnEntry('src/bootstrap/start.ts', { ...env, DATA_DIR: secondDir });
    const first = await samePort.exit();
    expect(existsSync(secondDir)).toBe(false);
    expect(first.code).toBe(1);
    expect(samePort.output().trim()).toBe(
      `Startup error: PORT: 127.0.0.1:${port} is already in use (another sandbox, or another program); stop it, or set PORT`,
    );
    // `npm start` again in the same checkout (same DATA_DIR, same PORT): the running sandbox is the cause named.
    const again = spawnEntry('src/bootstrap/start.ts', env);
    expect((await again.exit()).code).toBe(1);
    expect(again.output().trim()).toMatch(new RegExp(`^Startup error: DATA_DIR: ${dataDir} is in use by the sandbox running as pid \\d+; `));
    // A whole free block (PORT+1 … PORT+6 are the other processes' and the chains'): the DATA_DIR is what is refused.
    const sameDir = spawnEntry('src/bootstrap/start.ts', { ...env, PORT: String(await freePortBlock(7)) });
    const second = await sameDir.exit();
    expect(second.code).toBe(1);
    expect(sameDir.output().trim()).toMatch(new RegExp(`^Startup error: DATA_DIR: ${dataDir} is in use by the sandbox running as pid \\d+; `));
    // The first sandbox is unharmed.
    expect((await call(base(), pasted, { path: '/v2/chains?after=second' })).status).toBe(200);
  }, 60_000);

  it('runs a second sandbox beside the first with another PORT and DATA_DIR', async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'wallet-e2e-3-'));
    let otherPort = await freePortBlock(7);
    while (Math.abs(port - otherPort) < 7) otherPort = await freePortBlock(7);
    // This one is given its seed in the environment: only its chain-worker may see it (ADR 0026).
    const otherEnv = { ...env, DATA_DIR: otherDir, PORT: String(otherPort), MASTER_SEED: SEED };
    const other = spawnEntry('src/bootstrap/start.ts', otherEnv);
    try {
      await other.waitFor(/workspace: .*made now/, 120_000);
      const created = await runEntry('src/bootstrap/ops.ts', otherEnv, ['workspace', 'create', '--name', 'beside', '--json']);
      expect(created.code).toBe(0);
      const ws = JSON.parse(created.stdout) as typeof workspace;
      const key = { keyId: ws.test_key.key_id, secret: ws.test_key.secret };
      expect((await call(`http://127.0.0.1:${otherPort}`, key, { path: '/v2/chains' })).status).toBe(200);
      const seedIn = async (p: number) => readFileSync(`/proc/${(await health(p)).pid}/environ`, 'utf8').split('\0').some((v) => v.startsWith('MASTER_SEED'));
      expect([await seedIn(otherPort), await seedIn(otherPort + 1), await seedIn(otherPort + 2)]).toEqual([false, true, false]);
      // The api, without the seed, derives from the xpubs the chain-worker recorded.
      const wallet = await call(`http://127.0.0.1:${otherPort}`, key, { method: 'POST', path: '/v2/wallets', body: JSON.stringify({ chain: 'TRON', asset: 'USDT_TRON' }) });
      expect([wallet.status, wallet.body.address]).toEqual([201, expect.stringMatching(/^T/)]);
      // Each sandbox knows only its own keys.
      expect((await call(base(), key, { path: '/v2/chains?other' })).status).toBe(401);
    } finally {
      other.child.kill('SIGTERM');
      expect((await other.exit()).code).toBe(0);
      removeDataDir(otherDir);
    }
    expect((await call(base(), pasted, { path: '/v2/chains?after=beside' })).status).toBe(200);
  }, 180_000);

  it('ops refuses a DATA_DIR that holds no sandbox, in one line naming DATA_DIR, and creates nothing', async () => {
    const empty = join(tmpdir(), `wallet-e2e-none-${process.pid}`);
    const json = await runEntry('src/bootstrap/ops.ts', { ...env, DATA_DIR: empty }, ['workspace', 'create', '--name', 'x', '--json']);
    expect(json.code).toBe(1);
    const failure = JSON.parse(json.stdout) as { error: string; code: string };
    expect(failure).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringMatching(new RegExp(`^Configuration error: DATA_DIR: no sandbox in ${empty} yet; start one with npm start`)) });
    const text = await runEntry('src/bootstrap/ops.ts', { ...env, DATA_DIR: empty }, ['workspace', 'create', '--name', 'x']);
    expect([text.code, text.stdout, text.stderr.trim().split('\n').length]).toEqual([1, '', 1]);
    expect(existsSync(empty)).toBe(false);
  });

  it('creates a workspace with the ops CLI against the running sandbox, printing one JSON object', async () => {
    const res = await runEntry('src/bootstrap/ops.ts', env, ['workspace', 'create', '--name', 'e2e', '--json']);
    expect(res.code).toBe(0);
    workspace = JSON.parse(res.stdout);
    expect(Object.keys(workspace).sort()).toEqual(['contact_email', 'live_key', 'test_key', 'workspace_id']);
    expect(workspace.live_key.key_id).toMatch(/^sk_live_/);
    expect(workspace.test_key.key_id).toMatch(/^sk_test_/);
    expect(typeof workspace.test_key.secret).toBe('string');
  });

  it('issues a full-scope key for an existing workspace with the ops CLI (recovery after revoking every key)', async () => {
    const res = await runEntry('src/bootstrap/ops.ts', env, ['key', 'issue', '--workspace', workspace.workspace_id, '--side', 'test', '--json']);
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as { workspace_id: string; key: { key_id: string; secret: string } };
    expect(out.key.key_id).toMatch(/^sk_test_/);
    expect((await call(base(), { keyId: out.key.key_id, secret: out.key.secret }, { path: '/v2/chains?issued=1' })).status).toBe(200);
    const unknown = await runEntry('src/bootstrap/ops.ts', env, ['key', 'issue', '--workspace', '00000000-0000-4000-8000-000000000000', '--side', 'live', '--json']);
    expect([unknown.code, JSON.parse(unknown.stdout).code]).toEqual([2, 'WORKSPACE_NOT_FOUND']);
  });

  it('answers a signed request with the workspace key over real HTTP', async () => {
    const res = await call(base(), testKey(), { path: '/v2/chains' });
    expect(res.status).toBe(200);
    expect(res.body.data.every((c: { chain: string; enabled: boolean }) => c.chain.endsWith('_TESTNET') && c.enabled)).toBe(true);
    // The local sandbox confirms after 2 blocks (docs/operations.md#the-local-sandbox).
    expect(res.body.data.every((c: { required_confirmations: number }) => c.required_confirmations === 2)).toBe(true);
  });

  it('accepts a webhook URL on a public address and one on this machine (npm start sets loopback), and refuses any other private one', async () => {
    const body = (url: string) => JSON.stringify({ url, events: ['WITHDRAWAL_POLICY_CHANGED'] });
    const ok = await call(base(), testKey(), { method: 'POST', path: '/v2/webhooks', body: body('https://93.184.216.34/hooks') });
    expect(ok.status).toBe(201);
    const local = await call(base(), testKey(), { method: 'POST', path: '/v2/webhooks', body: body('http://127.0.0.1:9/hooks') });
    expect(local.status).toBe(201);
    for (const url of ['https://10.0.0.1/', 'http://192.168.1.10/hooks', 'https://169.254.169.254/latest']) {
      const refused = await call(base(), testKey(), { method: 'POST', path: '/v2/webhooks', body: body(url) });
      expect([refused.status, refused.body.code], url).toEqual([400, 'VALIDATION_ERROR']);
    }
    for (const id of [ok.body.id, local.body.id]) expect((await call(base(), testKey(), { method: 'DELETE', path: `/v2/webhooks/${id}` })).status).toBe(200);
  });

  it('runs the chain-worker on PORT+1 and the dispatcher on PORT+2, each consuming its heartbeat', async () => {
    for (const [p, job] of [
      [port + 1, 'chain.heartbeat'],
      [port + 2, 'dispatch.heartbeat'],
    ] as const) {
      expect((await fetch(`http://127.0.0.1:${p}/readyz`)).status).toBe(200);
      await poll(
        async () => {
          const text = await (await fetch(`http://127.0.0.1:${p}/metrics`)).text();
          return new RegExp(`jobs_processed_total\\{[^}]*name="${job.replace('.', '\\.')}"[^}]*\\} [1-9]`).test(text) ? true : undefined;
        },
        30_000,
        `${job} to be processed`,
      );
    }
  });

  it('restarts a crashed worker', async () => {
    const before = (await health(port + 1)).pid;
    process.kill(before, 'SIGKILL');
    const after = await poll(
      async () => {
        const h = await health(port + 1);
        return h.pid !== before ? h.pid : undefined;
      },
      20_000,
      'the chain-worker to come back',
    );
    expect(after).not.toBe(before);
  });

  it('deactivates a workspace with the ops CLI; its keys are refused with WORKSPACE_INACTIVE', async () => {
    const res = await runEntry('src/bootstrap/ops.ts', env, ['workspace', 'deactivate', '--workspace', workspace.workspace_id, '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ workspace_id: workspace.workspace_id, status: 'INACTIVE' });
    const denied = await call(base(), testKey(), { path: '/v2/chains?after=deactivate' });
    expect([denied.status, denied.body.code]).toEqual([403, 'WORKSPACE_INACTIVE']);
    const back = await runEntry('src/bootstrap/ops.ts', env, ['workspace', 'activate', '--workspace', workspace.workspace_id, '--json']);
    expect(back.code).toBe(0);
  });

  it('switches a network off and on with the ops CLI; GET /v2/chains follows at once', async () => {
    const off = await runEntry('src/bootstrap/ops.ts', env, ['chain', 'disable', '--chain', 'ETH_TESTNET', '--json']);
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stdout)).toEqual({ chain: 'ETH_TESTNET', enabled: false });
    const chains = await call(base(), testKey(), { path: '/v2/chains?after=disable' });
    expect(chains.body.data.find((c: { chain: string }) => c.chain === 'ETH_TESTNET').enabled).toBe(false);
    const on = await runEntry('src/bootstrap/ops.ts', env, ['chain', 'enable', '--chain', 'ETH_TESTNET', '--json']);
    expect(JSON.parse(on.stdout)).toEqual({ chain: 'ETH_TESTNET', enabled: true });
    const bad = await runEntry('src/bootstrap/ops.ts', env, ['chain', 'enable', '--chain', 'SOL_MAINNET', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).code).toBe('VALIDATION_ERROR'); // one JSON object on stdout, failures too (README.md#operator-cli)
  });

  it('stops on SIGTERM with exit code 0 within 10 seconds, and a second start reuses the data', async () => {
    const { code, ms } = await stopSandbox(sandbox!);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    // One line for the person at the terminal, whatever the log format.
    expect(sandbox!.output().trimEnd().split('\n').at(-1)).toBe(`Wallet service sandbox stopped (SIGTERM); its data is kept in ${dataDir}.`);
    sandbox = await startSandbox();
    expect(readyAtBanner).toEqual([200, 200, 200]);
    // The workspace made at the first start is kept: never a second one over the only copy of its secrets.
    await sandbox.waitFor(/workspace: .*made earlier/, 10_000);
    expect(sandbox.output()).toContain(`(made earlier), its test and live keys in ${join(dataDir, 'workspace.json')}`);
    const res = await call(base(), testKey(), { path: '/v2/chains?second=run' });
    expect(res.status).toBe(200);
  }, 120_000);
});

describe('npm start under npm', () => {
  it('stops the whole sandbox when npm itself gets SIGTERM, and gives DATA_DIR back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wallet-e2e-npm-'));
    let p = await freePortBlock(7);
    while (Math.abs(port - p) < 7) p = await freePortBlock(7);
    const npm = spawn('npm', ['start'], { env: { ...env, DATA_DIR: dir, PORT: String(p) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    npm.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await poll(async () => (/workspace: .*made now/.test(out) ? true : undefined), 90_000, `the banner; output:\n${out}`);
      expect(existsSync(join(dir, 'sandbox.pid'))).toBe(true);
      npm.kill('SIGTERM');
      await poll(
        async () => (await fetch(`http://127.0.0.1:${p}/healthz`).then(() => undefined, () => true)),
        20_000,
        'the api to stop',
      );
      await poll(async () => (existsSync(join(dir, 'sandbox.pid')) ? undefined : true), 20_000, 'DATA_DIR to be given back');
    } finally {
      npm.kill('SIGKILL');
      removeDataDir(dir);
    }
  }, 150_000);
});

describe('production mode', () => {
  it('refuses to start without DATABASE_URL, naming the variable in one line', async () => {
    const { DATABASE_URL: _d, SECRET_ENCRYPTION_KEY: _k, MASTER_SEED: _s, ...rest } = process.env;
    const res = await runEntry('src/bootstrap/api.ts', { ...rest, NODE_ENV: 'production' });
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toBe('Configuration error: DATABASE_URL: required in production (NODE_ENV=production)');
  });

  it('refuses to start without the encryption key once the database is given', async () => {
    const { SECRET_ENCRYPTION_KEY: _k, MASTER_SEED: _s, ...rest } = process.env;
    const res = await runEntry('src/bootstrap/dispatcher.ts', { ...rest, NODE_ENV: 'production', DATABASE_URL: 'postgres://127.0.0.1:1/x' });
    expect(res.code).toBe(1);
    expect(res.stderr.trim()).toMatch(/^Configuration error: SECRET_ENCRYPTION_KEY: /);
  });
});
