// A local EVM node for the sandbox and the tests: anvil, the platform binary
// that the npm package @foundry-rs/anvil ships as @foundry-rs/anvil-<os>-<cpu>,
// spawned directly (works offline). The lockfile names the Linux x64 build
// (an optional dependency); other platforms install their own with npm.
// Never on the production path.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isPortFree } from './local-ports.js';

const require = createRequire(import.meta.url);

/** The anvil binary of this platform, from its @foundry-rs/anvil-<os>-<cpu> package. */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    const dir = dirname(require.resolve(`${pkg}/package.json`));
    return join(dir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  } catch {
    throw new Error(`${pkg} is not installed: run npm install --no-save ${pkg}@1.7.1 for the local EVM node of this platform (and never install with --omit=optional)`);
  }
}

export interface AnvilOptions {
  port: number;
  chainId: number;
  host?: string;
  /** Seconds between blocks; null mines only on request (evm_mine / anvil_mine). */
  blockTimeSeconds?: number | null;
  /** Where anvil keeps its state between runs (--state); none keeps it in memory. */
  stateFile?: string;
  /** Extra arguments, e.g. ['--accounts', '20']. */
  args?: string[];
}

export interface RunningAnvil {
  rpcUrl: string;
  port: number;
  chainId: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** JSON-RPC call to a node (for readiness and the test cheat codes). */
export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** Starts anvil and resolves once it answers eth_chainId; rejects with anvil's own words when it exits first. */
export async function startAnvil(opts: AnvilOptions): Promise<RunningAnvil> {
  const host = opts.host ?? '127.0.0.1';
  // Checked first: another node on the port would answer the readiness probe for this one.
  if (!(await isPortFree(opts.port, host))) throw new Error(`port ${opts.port} on ${host} is already in use`);
  const args = ['--host', host, '--port', String(opts.port), '--chain-id', String(opts.chainId), '--silent'];
  if (opts.blockTimeSeconds) args.push('--block-time', String(opts.blockTimeSeconds));
  if (opts.stateFile) args.push('--state', opts.stateFile);
  args.push(...(opts.args ?? []));
  // Its own process group, like the service processes: a terminal's Ctrl-C reaches the supervisor, which stops it last.
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString();
  });
  const rpcUrl = `http://${host.includes(':') ? `[${host}]` : host}:${opts.port}`;
  const exited = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      reject(new Error(`anvil exited (${signal ?? code}) on port ${opts.port}: ${stderr.trim().split('\n').pop() ?? ''}`)),
    );
  });
  exited.catch(() => undefined);
  const ready = (async () => {
    for (let i = 0; i < 300; i++) {
      try {
        await rpc(rpcUrl, 'eth_chainId');
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`anvil did not answer on ${rpcUrl} within 15 s`);
  })();
  try {
    await Promise.race([ready, exited]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  // A process that exits without stopping it (process.exit, a failed test file) takes its node along.
  // One killed by a signal cannot: ops stop the sandbox with SIGTERM, which stops its chains first.
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  child.once('exit', () => process.off('exit', onExit));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 3000);
    await gone;
    clearTimeout(t);
  };
  return { rpcUrl, port: opts.port, chainId: opts.chainId, child, stop };
}
