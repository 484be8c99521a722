// Where the integrator's tools (`npm run api`, `npm run listen`) find the API
// and the key they sign with: the environment first (WALLET_API_URL,
// WALLET_KEY_ID and WALLET_SECRET, as the SDK's examples name them), else the
// local sandbox: http://127.0.0.1:PORT and the workspace file `npm start`
// wrote (DATA_DIR/workspace.json, or the acme.json an earlier sandbox's
// banner command made), the test key unless `live` is asked for.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export interface Credentials {
  /** The API's origin, e.g. http://127.0.0.1:8080 (no /v2). */
  origin: string;
  keyId: string;
  secret: string;
  /** The workspace's id when the key came from the sandbox's workspace file. */
  workspaceId: string | null;
  /** Where the key came from, for one line of output. */
  source: string;
}

export class CredentialsError extends Error {}

const keyFile = z.object({
  workspace_id: z.string().min(1),
  live_key: z.object({ key_id: z.string().min(1), secret: z.string().min(1) }),
  test_key: z.object({ key_id: z.string().min(1), secret: z.string().min(1) }),
});

/** The sandbox's workspace file: workspace.json, or an earlier sandbox's acme.json. */
export const workspaceFile = (dataDir: string): string => {
  const earlier = join(dataDir, 'acme.json');
  const file = join(dataDir, 'workspace.json');
  return !existsSync(file) && existsSync(earlier) ? earlier : file;
};

/** The API's origin from a base URL given with or without /v2. */
export function originOf(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    // Not echoed: a secret pasted into the wrong variable must not reach the terminal or a CI log.
    throw new CredentialsError('WALLET_API_URL: not a URL; e.g. http://127.0.0.1:8080/v2');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CredentialsError('WALLET_API_URL: must be an http or https URL');
  if (url.username || url.password) throw new CredentialsError('WALLET_API_URL: must not carry a user or password');
  return url.origin + url.pathname.replace(/\/+$/, '').replace(/\/v2$/, '');
}

export function loadCredentials(env: NodeJS.ProcessEnv, side: 'test' | 'live' = 'test'): Credentials {
  const origin = originOf(env.WALLET_API_URL || `http://127.0.0.1:${env.PORT || '8080'}`);
  if (env.WALLET_KEY_ID || env.WALLET_SECRET) {
    if (!env.WALLET_KEY_ID || !env.WALLET_SECRET) throw new CredentialsError('WALLET_KEY_ID and WALLET_SECRET go together: set both, or neither to use the sandbox workspace file');
    return { origin, keyId: env.WALLET_KEY_ID, secret: env.WALLET_SECRET, workspaceId: null, source: 'WALLET_KEY_ID' };
  }
  const file = workspaceFile(env.DATA_DIR || '.data');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CredentialsError(
      `no key: set WALLET_KEY_ID and WALLET_SECRET, or start the sandbox (npm start writes its workspace's keys to ${file}; started with another DATA_DIR? set it here too)`,
    );
  }
  let parsed: z.infer<typeof keyFile>;
  try {
    parsed = keyFile.parse(JSON.parse(text));
  } catch {
    throw new CredentialsError(`${file} is not the workspace file ops workspace create --json writes`);
  }
  const key = side === 'live' ? parsed.live_key : parsed.test_key;
  return { origin, keyId: key.key_id, secret: key.secret, workspaceId: parsed.workspace_id, source: `${file} (${side} key)` };
}
