// Starts real service processes in-process against a test database, and signs
// requests like an integrator does.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { CreateWorkspace, type CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { parseConfig, type Config } from '../../src/bootstrap/config.js';
import { startApi, type RunningApi } from '../../src/bootstrap/api.js';
import { authHeaders } from '../../src/sdk/signing.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { checkResponse } from './openapi-check.js';

export const TEST_SEED =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** One encryption key per test process: every api started by a test file must open the same secrets. */
export const TEST_ENCRYPTION_KEY = randomBytes(32).toString('base64');

export function testConfig(databaseUrl: string, env: Record<string, string> = {}): Config {
  const config = parseConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    MASTER_SEED: TEST_SEED,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_TIMEOUT_MS: '3000',
    // Tests fail to authenticate on purpose, all from 127.0.0.1; the throttle has its own tests.
    AUTH_FAILURE_BURST: '1000000',
    ...env,
  });
  return { ...config, ports: { api: 0, chainWorker: 0, dispatcher: 0 } };
}

export async function startTestApi(config: Config): Promise<RunningApi & { baseUrl: string }> {
  const api = await startApi(config);
  return { ...api, baseUrl: `http://127.0.0.1:${api.port}` };
}

export function createWorkspace(api: RunningApi, name = 'acme'): Promise<CreatedWorkspace> {
  return api.infra.container.resolve(CreateWorkspace).execute({ name });
}

export interface SignedCall {
  method?: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  timestamp?: string;
}

/** One signed request over real HTTP; returns status, headers and parsed body. */
export async function call(
  baseUrl: string,
  key: { keyId: string; secret: string },
  req: SignedCall,
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const method = req.method ?? 'GET';
  const headers: Record<string, string> = {
    ...authHeaders(key.keyId, { secret: key.secret, method, path: req.path, body: req.body ?? '', timestamp: req.timestamp }),
    ...(req.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...req.headers,
  };
  const res = await fetch(baseUrl + req.path, { method, headers, body: req.body });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  // Every answer is checked against the OpenAPI document: a drift fails the test that saw it.
  checkResponse(method, req.path, res.status, body);
  return { status: res.status, headers: res.headers, body, text };
}

export type TestApi = RunningApi & { baseUrl: string };

/**
 * The usual fixture of a test file: its own database, an api process on it and
 * a workspace with its two keys, set up before the file's tests and torn down
 * after. Read the fields inside tests (they are filled by beforeAll).
 */
export function useTestApi(opts: { workspace?: string; env?: Record<string, string> } = {}) {
  const ctx = {} as { db: TestDatabase; api: TestApi; ws: CreatedWorkspace };
  beforeAll(async () => {
    ctx.db = await createTestDatabase();
    ctx.api = await startTestApi(testConfig(ctx.db.url, opts.env));
    ctx.ws = await createWorkspace(ctx.api, opts.workspace);
  });
  afterAll(async () => {
    await ctx.api?.close();
    await ctx.db?.drop();
  });
  return ctx;
}

let unique = 0;

/**
 * A signed JSON call whose path gets a unique query parameter: two identical
 * requests signed in the same second would otherwise be a replay.
 */
export function uniqueCall(
  baseUrl: string,
  key: { keyId: string; secret: string },
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) {
  return call(baseUrl, key, {
    method,
    path: `${path}${path.includes('?') ? '&' : '?'}u=${++unique}`,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    headers,
  });
}

/** The error a call failed with (for asserting on SDK errors). */
export async function failure<E = Error>(p: Promise<unknown>): Promise<E> {
  try {
    await p;
  } catch (err) {
    return err as E;
  }
  throw new Error('expected the call to fail');
}
