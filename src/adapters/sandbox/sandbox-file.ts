// DATA_DIR/sandbox.json: what the local chains of `npm start` are (their
// URLs, the sandbox tokens, the outside and cold accounts), written by
// local-chains.ts and read by the processes and tools that use them. Apart
// from the chains themselves, so a reader loads no node or stand-in.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Asset, Network } from '../../domain/money/networks.js';

export interface SandboxNetwork {
  rpc_url: string;
  /** With SANDBOX_PROVIDERS: the provider imitation in front of `rpc_url`, which the service's processes and ops use. */
  provider_url?: string;
  chain_id?: number;
  tokens: Partial<Record<Asset, string>>;
  outside_account: { address: string; private_key: string };
  /** The sandbox's cold storage (issue 31): an outside account holding only what is forwarded to it. */
  cold_account?: { address: string; private_key: string };
}

export interface SandboxFile {
  networks: Partial<Record<Network, SandboxNetwork>>;
}

export const sandboxFilePath = (dataDir: string) => join(dataDir, 'sandbox.json');

export function readSandboxFile(dataDir: string): SandboxFile | null {
  try {
    return JSON.parse(readFileSync(sandboxFilePath(dataDir), 'utf8')) as SandboxFile;
  } catch {
    return null;
  }
}

/** Merges `networks` into DATA_DIR/sandbox.json (written whole, then renamed: readers never see half a file). */
export function writeSandboxNetworks(dataDir: string, networks: SandboxFile['networks']): SandboxFile {
  const file: SandboxFile = { networks: { ...(readSandboxFile(dataDir)?.networks ?? {}), ...networks } };
  const path = sandboxFilePath(dataDir);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
  return file;
}
