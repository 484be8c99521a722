// `npm run listen -- --trigger EVENT`: an event caused on purpose, so a
// receiver can be tried without waiting for real money to move. Only sandbox
// money and the workspace's own settings are touched, and the settings are
// put back as they were.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { once } from 'node:events';
import type { Credentials } from './credentials.js';
import { errorCodeOf, type SignedAnswer } from './signed-fetch.js';

export interface TriggerContext {
  api: (method: string, target: string, body?: unknown, headers?: Record<string, string>) => Promise<SignedAnswer>;
  creds: Credentials;
  env: NodeJS.ProcessEnv;
  log: (s: string) => void;
}

export const TRIGGERS = {
  DEPOSIT_CONFIRMED: {
    emits: ['DEPOSIT_DETECTED', 'DEPOSIT_CONFIRMED'],
    does: 'the sandbox faucet drips 25 USDT_ETH (test money) to a wallet of the workspace\'s own; it arrives as an ordinary deposit (fee included, below the sweep minimum)',
  },
  WITHDRAWAL_POLICY_CHANGED: {
    emits: ['WITHDRAWAL_POLICY_CHANGED'],
    does: 'the owner command `ops policy set` moves the workspace\'s mainnet approval quorum by one and back (two events; the policy ends as it was)',
  },
} as const;
export type TriggerName = keyof typeof TRIGGERS;

class TriggerError extends Error {}

const refused = (what: string, a: SignedAnswer) =>
  new TriggerError(`${what} was refused: ${a.status} ${errorCodeOf(a) ?? ''} ${(a.json as { error?: string } | null)?.error ?? a.text}`.replace(/\s+/g, ' ').trim());

export async function runTrigger(name: TriggerName, ctx: TriggerContext): Promise<void> {
  try {
    if (name === 'DEPOSIT_CONFIRMED') await faucetDeposit(ctx);
    else await policyRoundTrip(ctx);
  } catch (err) {
    // The listener goes on: the trigger's failure is reported, not fatal.
    ctx.log(`Trigger failed: ${(err as Error).message}`);
  }
}

async function faucetDeposit(ctx: TriggerContext): Promise<void> {
  // One wallet for every trigger of the day: the create is idempotent under this key for 24 hours.
  const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
  const wallet = await ctx.api('POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' }, { 'idempotency-key': `npm-run-listen-wallet-${day}` });
  if (wallet.status !== 201 && wallet.status !== 200) throw refused('creating the wallet', wallet);
  const address = (wallet.json as { address: string }).address;
  const drip = await ctx.api('POST', '/v2/sandbox/faucet', { chain: 'ETH', address, assets: [{ symbol: 'USDT_ETH', amount: '25' }] }, { 'idempotency-key': randomUUID() });
  if (drip.status !== 201) throw refused('the faucet drip', drip);
  ctx.log(`Faucet drip ${(drip.json as { drip_id: string }).drip_id} to ${address}: the deposit's events follow in a few seconds.`);
}

/**
 * An ops command's JSON answer. The command runs in a process group of its own: a Ctrl-C at the terminal stops
 * the listener, which lets the command end (the quorum put back) instead of it being killed half-way.
 */
async function ops(ctx: TriggerContext, args: string[]): Promise<Record<string, unknown>> {
  // The ops entrypoint beside this module: ops.ts through tsx (npm run listen), ops.js when built.
  const ts = import.meta.url.endsWith('.ts');
  const entry = resolve(import.meta.dirname, `../../bootstrap/ops.${ts ? 'ts' : 'js'}`);
  const child = spawn(process.execPath, [...(ts ? ['--import', 'tsx'] : []), entry, ...args, '--json'], { env: ctx.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGTERM'), 60_000);
  const [code, signal] = (await once(child, 'close').finally(() => clearTimeout(timer))) as [number | null, NodeJS.Signals | null];
  if (code === 0) return JSON.parse(stdout) as Record<string, unknown>;
  let message = stderr.trim() ? stderr.trim().split('\n').slice(-3).join(' ') : `ended with ${signal ?? `exit code ${code}`}`;
  try {
    message = (JSON.parse(stdout) as { error: string }).error;
  } catch {
    /* not JSON: the process's own message */
  }
  throw new TriggerError(`ops ${args.slice(0, 2).join(' ')}: ${message}`);
}

async function policyRoundTrip(ctx: TriggerContext): Promise<void> {
  const workspace = ctx.creds.workspaceId;
  if (!workspace) throw new TriggerError('WITHDRAWAL_POLICY_CHANGED needs the sandbox workspace file (DATA_DIR/workspace.json) to know the workspace; it was not used');
  const shown = await ops(ctx, ['policy', 'show', '--workspace', workspace]);
  // The quorum always has a value (1 unless an owner raised it), so it can be put back exactly.
  const quorum = (shown.policy as { approval_quorum: number }).approval_quorum;
  const other = quorum > 1 ? quorum - 1 : quorum + 1;
  await ops(ctx, ['policy', 'set', '--workspace', workspace, '--approval-quorum', String(other)]);
  await ops(ctx, ['policy', 'set', '--workspace', workspace, '--approval-quorum', String(quorum)]);
  ctx.log(`Approval quorum set to ${other} and back to ${quorum}: two WITHDRAWAL_POLICY_CHANGED events, on both sides.`);
}
