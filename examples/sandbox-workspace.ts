// What every example needs from the local sandbox (`npm start`): a client for
// the workspace's test key and the sandbox's outside account. In your own
// project the client comes from your configuration and the import is
// `from '@wallet-service/sdk'`.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WalletClient, type ResolvedChain } from '../src/sdk/index.js';

/** DATA_DIR as `npm start` uses it: `.data` of the repository unless set. */
const dataDir = (): string => resolve(process.env.DATA_DIR ?? '.data');

/** The API as the sandbox's banner prints it: PORT (default 8080) on this machine, or WALLET_API_URL. */
export const apiUrl = (): string => process.env.WALLET_API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}/v2`;

function readJson<T>(file: string, hint: string): T {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    throw new Error(`${file} is missing or unreadable: ${hint}`);
  }
}

/**
 * A client signing with WALLET_KEY_ID and WALLET_SECRET, or else with the
 * test key of the sandbox's workspace: DATA_DIR/workspace.json, which
 * `npm start` writes the first time (or the acme.json of an older sandbox).
 */
export function sandboxClient(): WalletClient {
  let keyId = process.env.WALLET_KEY_ID;
  let secret = process.env.WALLET_SECRET;
  if (!keyId || !secret) {
    const older = join(dataDir(), 'acme.json');
    const file = existsSync(older) && !existsSync(join(dataDir(), 'workspace.json')) ? older : join(dataDir(), 'workspace.json');
    const ws = readJson<{ test_key: { key_id: string; secret: string } }>(file, 'start the sandbox with npm start (same DATA_DIR), or set WALLET_KEY_ID and WALLET_SECRET');
    keyId = ws.test_key.key_id;
    secret = ws.test_key.secret;
  }
  return new WalletClient({ baseUrl: apiUrl(), keyId, secret });
}

/** The sandbox's outside account on a network: an address no wallet of the service watches. */
export function outsideAddress(network: ResolvedChain): string {
  const file = join(dataDir(), 'sandbox.json');
  const sandbox = readJson<{ networks: Record<string, { outside_account: { address: string } }> }>(file, 'start the sandbox with npm start (same DATA_DIR)');
  const account = sandbox.networks[network]?.outside_account;
  if (!account) throw new Error(`${file} has no outside account on ${network}`);
  return account.address;
}

/** One line of the example's progress on stdout. */
export const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Ends the example on an error: its code when the API or the SDK gave one, and exit status 1. */
export function fail(err: unknown): never {
  const code = (err as { code?: unknown }).code;
  process.stderr.write(`failed: ${typeof code === 'string' ? `${code} ` : ''}${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
