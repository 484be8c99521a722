// Starts real service processes in-process against a test database, and signs
// requests like an integrator does.
import { randomBytes } from 'node:crypto';
import { CreateWorkspace, type CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { parseConfig, type Config } from '../../src/bootstrap/config.js';
import { startApi, type RunningApi } from '../../src/bootstrap/api.js';
import { authHeaders } from '../../src/sdk/signing.js';

export const TEST_SEED =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** One encryption key per test process: every api started by a test file must open the same secrets. */
const TEST_ENCRYPTION_KEY = randomBytes(32).toString('base64');

export function testConfig(databaseUrl: string, env: Record<string, string> = {}): Config {
  const config = parseConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    MASTER_SEED: TEST_SEED,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_TIMEOUT_MS: '3000',
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
  return { status: res.status, headers: res.headers, body, text };
}
