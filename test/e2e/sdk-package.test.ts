// The SDK as an integrator gets it: `npm run sdk:pack`'s tarball installed
// offline into scratch projects, one CommonJS (require) and one ES module
// (import), each calling a real running API with it: signed GETs, a list
// iterator, a create and a typed error. Its typings are checked from both
// module systems with the consumers' own TypeScript settings.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApi } from '../support/harness.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const t = useTestApi({ workspace: 'sdk-package' });
let scratch: string;
let tarball: string;

/** The same calls in either module system; `load` is the line that brings the SDK in. */
const consumer = (load: string) => `${load}
(async () => {
  const client = new WalletClient({ baseUrl: process.env.WALLET_API_URL, keyId: process.env.WALLET_KEY_ID, secret: process.env.WALLET_SECRET });
  const chains = await client.listChains();
  const wallet = await client.createWallet({ chain: 'ETH', asset: 'USDT_ETH' });
  const listed = [];
  for await (const w of client.wallets.list({ chain: 'ETH', limit: 1 })) listed.push(w.id);
  let error;
  try {
    await client.getWithdrawal('00000000-0000-4000-8000-000000000000');
  } catch (err) {
    error = { notFound: err instanceof NotFoundError, apiError: err instanceof WalletApiError, code: err.code, status: err.status, requestId: typeof err.requestId };
  }
  console.log(JSON.stringify({ version: SDK_VERSION, chains: chains.data.map((c) => c.chain).sort(), status: chains.lastResponse.status, wallet: wallet.id, listed, error }));
})().catch((err) => { console.error(err); process.exit(1); });
`;

/** Typed use of the package; compiled with --noEmit, it fails on a missing or wrong declaration. */
const typedConsumer = (load: string) => `${load}
const client = new WalletClient({ baseUrl: 'http://127.0.0.1:1/v2', keyId: 'k', secret: 's' });
export async function use(): Promise<string> {
  for await (const w of client.wallets.list({ chain: 'ETH' })) {
    const address: string = w.address;
    return address;
  }
  const w = await client.waitFor({ id: 'x', requested_at: 'y' }, 'CONFIRMED', { timeoutMs: 1000 });
  const status: WithdrawalStatus = w.status;
  try {
    await client.getWallet('x');
  } catch (err) {
    if (err instanceof NotFoundError && err.code === 'NOT_FOUND') return status;
  }
  return w.lastResponse.requestId ?? '';
}
`;

async function project(name: string, type: 'commonjs' | 'module'): Promise<string> {
  const dir = join(scratch, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: dir });
  return dir;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'wallet-sdk-package-'));
  const packed = await run(process.execPath, ['--import', 'tsx', 'scripts/pack-sdk.ts'], { cwd: root });
  tarball = packed.stdout.trim();
}, 120_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the packed SDK in a scratch project', () => {
  const env = () => ({ ...process.env, WALLET_API_URL: `${t.api.baseUrl}/v2`, WALLET_KEY_ID: t.ws.testKey.keyId, WALLET_SECRET: t.ws.testKey.secret });

  it('is @wallet-service/sdk with no dependencies, a README without dead links, and both module systems declared', async () => {
    expect(tarball).toMatch(/\/dist\/wallet-service-sdk-1\.0\.0\.tgz$/);
    const listing = (await run('tar', ['-tzf', tarball])).stdout.split('\n');
    expect(listing).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/esm/index.js', 'package/esm/index.d.ts', 'package/cjs/index.js', 'package/cjs/index.d.ts', 'package/cjs/package.json']));
    expect(listing.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse((await run('tar', ['-xzOf', tarball, 'package/package.json'])).stdout) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: '@wallet-service/sdk', version: '1.0.0', engines: { node: '>=20.19' } });
    expect(manifest.dependencies).toBeUndefined();
    const readme = (await run('tar', ['-xzOf', tarball, 'package/README.md'])).stdout;
    expect(readme).toContain('@wallet-service/sdk');
    expect([...readme.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]).filter((target) => !/^(https?:|#)/.test(target!))).toEqual([]);
  });

  it('works from a CommonJS project with require', { timeout: 60_000 }, async () => {
    const dir = await project('cjs-consumer', 'commonjs');
    writeFileSync(join(dir, 'main.js'), consumer("const { WalletClient, NotFoundError, WalletApiError, SDK_VERSION } = require('@wallet-service/sdk');"));
    const out = JSON.parse((await run(process.execPath, ['main.js'], { cwd: dir, env: env() })).stdout);
    expect(out).toMatchObject({
      version: '1.0.0',
      chains: ['BSC_TESTNET', 'ETH_TESTNET', 'TRON_TESTNET'],
      status: 200,
      error: { notFound: true, apiError: true, code: 'NOT_FOUND', status: 404, requestId: 'string' },
    });
    expect(out.listed).toContain(out.wallet);
  });

  it('works from an ES module project with import', { timeout: 60_000 }, async () => {
    const dir = await project('esm-consumer', 'module');
    writeFileSync(join(dir, 'main.js'), consumer("import { WalletClient, NotFoundError, WalletApiError, SDK_VERSION } from '@wallet-service/sdk';"));
    const out = JSON.parse((await run(process.execPath, ['main.js'], { cwd: dir, env: env() })).stdout);
    expect(out).toMatchObject({ version: '1.0.0', status: 200, error: { notFound: true, apiError: true, code: 'NOT_FOUND', status: 404 } });
    expect(out.chains).toContain('ETH_TESTNET');
    expect(out.listed).toContain(out.wallet);
    expect(new Set(out.listed).size).toBe(out.listed.length);
  });

  it('type-checks from both module systems under node16 resolution', async () => {
    const dir = await project('typed-consumer', 'module');
    writeFileSync(join(dir, 'esm.ts'), typedConsumer("import { WalletClient, NotFoundError, type WithdrawalStatus } from '@wallet-service/sdk';"));
    writeFileSync(join(dir, 'cjs.cts'), typedConsumer("import { WalletClient, NotFoundError, type WithdrawalStatus } from '@wallet-service/sdk';"));
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022', '--typeRoots', join(root, 'node_modules/@types'), '--types', 'node'];
    // One run: the trace shows which declarations each file resolved; any type error fails it.
    const checked = await run(process.execPath, [tsc, ...args, '--traceResolution', 'esm.ts', 'cjs.cts'], { cwd: dir }).catch((err: { stdout: string }) => ({ stdout: err.stdout, failed: true }));
    expect(checked.stdout.split('\n').filter((l) => /error TS\d+/.test(l))).toEqual([]);
    expect('failed' in checked).toBe(false);
    const resolved = [...checked.stdout.matchAll(/'@wallet-service\/sdk' was successfully resolved to '[^']*\/sdk\/((?:esm|cjs)\/index\.d\.ts)'/g)].map((m) => m[1]);
    expect(new Set(resolved)).toEqual(new Set(['esm/index.d.ts', 'cjs/index.d.ts']));
    expect(readFileSync(join(dir, 'node_modules/@wallet-service/sdk/cjs/package.json'), 'utf8')).toContain('"commonjs"');
  }, 180_000);
});
