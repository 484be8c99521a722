// `npm start`: the local sandbox. Embedded PostgreSQL in DATA_DIR (unless
// DATABASE_URL), migrations, then api, chain-worker and dispatcher as separate
// OS processes, supervised: a crashed one is restarted with backoff; Ctrl-C or
// SIGTERM stops the service processes, then the database, and exits 0.
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../adapters/logging/logger.js';
import { lockDataDir, sandboxHolder, unlockDataDir } from '../adapters/sandbox/sandbox-lock.js';
import { makeDataDir } from '../adapters/sandbox/cluster.js';
import { loadConfigOrExit, reasonOf } from './config.js';
import { prepareDatabase } from './prepare-database.js';
import { ensureSandboxWorkspace, type SandboxWorkspace } from './sandbox-workspace.js';
import { firstPortProblem } from './sandbox-ports.js';
import { resolveSecrets } from './secrets.js';
import { childEnv, type ChildName } from './child-env.js';
import { LocalHdSigner } from '../adapters/signer/hd-signer.js';
import { LOCAL_EVM_CHAINS, startLocalChains, tronStandinTimingsFromEnv, type LocalChainSpec, type RunningLocalChains } from '../adapters/sandbox/local-chains.js';
import { sandboxFilePath, writeSandboxNetworks } from '../adapters/sandbox/sandbox-file.js';
import { servicePath } from '../domain/custody/derivation.js';
import { baseChainOf, type Network } from '../domain/money/networks.js';
import { parseImitationOption, startProviderImitation, type ProviderImitation } from '../adapters/sandbox/provider-imitation.js';

const here = dirname(fileURLToPath(import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const execArgv = ext === '.ts' ? ['--import', 'tsx'] : [];
const config = loadConfigOrExit();
// A person at the terminal reads lines, a machine reads JSON (the processes always write JSON; the supervisor formats).
const prettyLogs = config.logFormat === 'pretty' || (config.logFormat === undefined && process.stdout.isTTY === true);
// Loaded only here: pino-pretty is sandbox tooling (a dev dependency).
const pretty = prettyLogs ? await import('../adapters/sandbox/pretty-logs.js') : null;
const formatLine = pretty?.prettyFormatter(process.stdout.isTTY === true && !process.env.NO_COLOR) ?? null;
const logger = createLogger({ level: config.logLevel, name: 'supervisor', stream: formatLine ? pretty!.prettyDestination(process.stdout, formatLine) : undefined });
const dataDir = resolve(config.dataDir);

/** A start-up failure: one line naming the cause and the setting that moves it, exit 1. */
function fail(message: string): never {
  process.stderr.write(`Startup error: ${message}\n`);
  process.exit(1);
}

const inUse = (pid: number): never =>
  fail(`DATA_DIR: ${dataDir} is in use by the sandbox running as pid ${pid}; stop it first, or start this one with its own DATA_DIR and PORT`);
// A sandbox already running on this DATA_DIR holds the ports too: that is the cause to name, not a busy port.
const running = sandboxHolder(dataDir);
if (running !== null) inUse(running);
// Every port is checked before anything starts (or DATA_DIR is made): a busy one is one line.
const portProblem = await firstPortProblem(config);
if (portProblem) fail(portProblem);
try {
  makeDataDir(dataDir); // 0700 when made here; an existing one is left as it is
} catch (err) {
  fail(`DATA_DIR: cannot use ${dataDir} as a directory (${(err as NodeJS.ErrnoException).code ?? reasonOf(err)})`);
}
const holder = lockDataDir(dataDir);
if (holder !== null) inUse(holder);

// Ctrl-C or SIGTERM during start-up: noted, and acted on at the next step's end, so that what was
// started (the database, the local chains, the imitation) is stopped too instead of left running.
let interrupted: string | null = null;
const noteEarlySignal = (signal: string) => {
  if (interrupted === null) logger.info({ signal }, 'stopping: start-up ends its current step first');
  interrupted = signal;
};
process.on('SIGINT', noteEarlySignal);
process.on('SIGTERM', noteEarlySignal);

/** Stops what start-up has started so far and exits 0, when a signal came meanwhile. */
async function stopIfInterrupted(started: { imitations?: ProviderImitation[]; chains?: RunningLocalChains | null; db?: ChildProcess | null }): Promise<void> {
  if (interrupted === null) return;
  await Promise.all((started.imitations ?? []).map((i) => i.close().catch(() => undefined)));
  await started.chains?.stop().catch(() => undefined);
  if (started.db) {
    started.db.kill('SIGTERM');
    await exited(started.db);
  }
  process.exit(0);
}
process.on('exit', () => unlockDataDir(dataDir));
resolveSecrets(config); // generates the sandbox's key and seed on the first run (the api and the dispatcher never read the seed)

function spawnChild(name: ChildName, env: NodeJS.ProcessEnv): ChildProcess {
  // Own process group (detached): a terminal's Ctrl-C reaches only this
  // supervisor, which then stops the children in order. Only the
  // chain-worker gets the seed (childEnv).
  if (!formatLine) return fork(join(here, `${name}${ext}`), [], { execArgv, env: childEnv(name, env), detached: true, stdio: 'inherit' });
  const child = fork(join(here, `${name}${ext}`), [], { execArgv, env: childEnv(name, env), detached: true, stdio: ['inherit', 'pipe', 'pipe', 'ipc'] });
  pretty!.pipePretty(child.stdout!, process.stdout, formatLine);
  pretty!.pipePretty(child.stderr!, process.stderr, formatLine);
  return child;
}

async function startDatabase(): Promise<{ url: string; child: ChildProcess | null }> {
  if (config.databaseUrl) return { url: config.databaseUrl, child: null };
  const child = spawnChild('sandbox-db', process.env);
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m: { type?: string; url?: string }) => (m.url ? resolve(m.url) : reject(new Error('bad message'))));
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited with code ${code}`)));
  });
  return { url, child };
}

interface Supervised {
  name: ChildName;
  child: ChildProcess | null;
  restarts: number;
  startedAt: number;
}

let databaseUrl: string;
let dbChild: ChildProcess | null;
try {
  ({ url: databaseUrl, child: dbChild } = await startDatabase());
  const { applied } = await prepareDatabase(databaseUrl);
  if (applied.length) logger.info({ applied }, 'migrations applied');
} catch (err) {
  fail(`the database did not start (${reasonOf(err)})`);
}
await stopIfInterrupted({ db: dbChild });

// The local chains (ETH_TESTNET and BSC_TESTNET on anvil, TRON_TESTNET on the stand-in), unless a network's node is configured.
let chains: RunningLocalChains | null = null;
const localSpecs: LocalChainSpec[] = LOCAL_EVM_CHAINS.filter((c) => !config.networks.find((n) => n.network === c.network)?.rpcUrl).map(
  (c) => ({ ...c, port: c.network === 'ETH_TESTNET' ? config.sandboxPorts.eth : config.sandboxPorts.bsc }),
);
// TRON_TESTNET's local stand-in (ADR 0023), unless its node is configured.
const tronPort = config.networks.find((n) => n.network === 'TRON_TESTNET')?.rpcUrl ? undefined : config.sandboxPorts.tron;
if (localSpecs.length > 0 || tronPort !== undefined) {
  // The supervisor funds the service addresses of the local chains before any
  // process starts, so it derives them from the sandbox's seed itself.
  const signer = new LocalHdSigner(resolveSecrets(config).masterSeed);
  const roles = ['gasTank', 'treasury', 'faucet'] as const; // the faucet last: it also gets tokens
  try {
    chains = await startLocalChains({
      dataDir,
      host: '127.0.0.1',
      specs: localSpecs,
      tronPort,
      tron: tronStandinTimingsFromEnv(process.env),
      serviceAddresses: (network) => Promise.all(roles.map((r) => signer.deriveAddress(baseChainOf(network), servicePath(network, r)))),
      energyAccount: (network) => signer.deriveAddress('TRON', servicePath(network, 'energy')),
    });
  } catch (err) {
    dbChild?.kill('SIGTERM');
    fail(`the local chains did not start: ${reasonOf(err)}`);
  }
}
await stopIfInterrupted({ chains, db: dbChild });

// SANDBOX_PROVIDERS: the provider imitation in front of each local node (issue 30): the processes see a
// pool of backends that lag, reorg between reads and rate-limit, as hosted providers do.
const imitations: ProviderImitation[] = [];
const nodeUrls: Partial<Record<string, string>> = { ...(chains?.rpcUrls ?? {}) };
if (process.env.SANDBOX_PROVIDERS_SHARE !== undefined && !process.env.SANDBOX_PROVIDERS) {
  logger.warn('SANDBOX_PROVIDERS_SHARE is set without SANDBOX_PROVIDERS: no provider imitation runs');
}
if (process.env.SANDBOX_PROVIDERS && chains) {
  try {
    const rows = parseImitationOption(process.env.SANDBOX_PROVIDERS);
    const share = process.env.SANDBOX_PROVIDERS_SHARE === undefined ? 0.5 : Number(process.env.SANDBOX_PROVIDERS_SHARE);
    if (!(share >= 0 && share <= 1)) throw new Error(`SANDBOX_PROVIDERS_SHARE: must be a number from 0 to 1 (the share of calls a misbehaving backend takes), not ${process.env.SANDBOX_PROVIDERS_SHARE}`);
    for (const [network, url] of Object.entries(chains.rpcUrls)) {
      const imitation = await startProviderImitation({ kind: baseChainOf(network as Network) === 'TRON' ? 'tron' : 'evm', target: url, behaviours: rows, share });
      imitations.push(imitation);
      nodeUrls[network] = imitation.url;
    }
    logger.info({ behaviours: rows, share }, 'provider imitation in front of the local nodes');
    // ops reads the nodes as the processes do: behind the imitation (sandbox.json's provider_url).
    writeSandboxNetworks(
      dataDir,
      Object.fromEntries(Object.entries(chains.file.networks).map(([n, entry]) => [n, { ...entry!, provider_url: nodeUrls[n]! }])),
    );
  } catch (err) {
    await Promise.all(imitations.map((i) => i.close()));
    await chains.stop().catch(() => undefined);
    dbChild?.kill('SIGTERM');
    fail(/^SANDBOX_PROVIDERS_SHARE/.test(reasonOf(err)) ? reasonOf(err) : `SANDBOX_PROVIDERS: ${reasonOf(err)}`);
  }
}

await stopIfInterrupted({ imitations, chains, db: dbChild });

const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: config.dataDir };
for (const [network, url] of Object.entries(nodeUrls)) env[`${network}_RPC_URL`] = url;
// The local sandbox confirms after 2 blocks unless told otherwise
// (docs/operations.md#the-local-sandbox).
for (const network of ['ETH_TESTNET', 'BSC_TESTNET', 'TRON_TESTNET']) env[`${network}_CONFIRMATIONS`] ??= '2';
// Webhooks to a receiver on this machine (npm run listen) without a restart; nothing else private
// (docs/api.md#webhook-endpoints). Set here, not by default: only the sandbox does it.
if (!config.production) env.WEBHOOK_ALLOW_PRIVATE ??= 'loopback';
const processes: Supervised[] = (['api', 'chain-worker', 'dispatcher'] as const).map((name) => ({
  name,
  child: null,
  restarts: 0,
  startedAt: 0,
}));
let stopping = false;

function launch(p: Supervised): void {
  p.startedAt = Date.now();
  const child = spawnChild(p.name, env);
  p.child = child;
  child.on('exit', (code, signal) => {
    p.child = null;
    if (stopping) return;
    // Back off on a crash loop; a process that ran a minute starts over at 1 s.
    if (Date.now() - p.startedAt > 60_000) p.restarts = 0;
    const delay = Math.min(30_000, 1000 * 2 ** p.restarts++);
    logger.warn({ process: p.name, code, signal, restartInMs: delay }, 'process exited; restarting');
    setTimeout(() => !stopping && launch(p), delay);
  });
}

processes.forEach(launch);
// The sandbox's own workspace, made the first time (its keys go to a file, never to the terminal), while the
// processes start: it needs only the database. A failure is reported with the banner.
const workspaceMade: Promise<SandboxWorkspace | Error> = ensureSandboxWorkspace({ dataDir, opsEntry: join(here, `ops${ext}`), execArgv, env }).catch(
  (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
);

async function waitReady(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

// Where to reach the processes from here: a wildcard host is reached on loopback; an IPv6 literal in brackets.
const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
/** A word for a POSIX shell: as is when plain, else single-quoted. */
const sh = (s: string) => (/^[\w/.:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
/** What a second terminal needs to find this sandbox: the same DATA_DIR, and DATABASE_URL when one was given (password masked). */
const opsEnv = [`DATA_DIR=${sh(dataDir)}`];
if (config.databaseUrl) {
  const u = new URL(config.databaseUrl);
  if (u.password) u.password = 'PASSWORD';
  opsEnv.push(`DATABASE_URL=${sh(u.toString())}`);
}
const shownDatabase = (() => {
  const u = new URL(databaseUrl);
  if (!u.password) return u.toString();
  u.password = '***';
  // The sandbox's own password is random, kept with its other secrets (0600).
  return config.databaseUrl ? u.toString() : `${u.toString()} (password in ${join(dataDir, 'secrets', 'postgres.password')})`;
})();
const apiUrl = `http://${host}:${config.ports.api}`;
// The banner goes out once all three processes answer /readyz.
const readiness = [
  `${apiUrl}/readyz`,
  `http://${host}:${config.ports.chainWorker}/readyz`,
  `http://${host}:${config.ports.dispatcher}/readyz`,
].map((url) => waitReady(url, 60_000));
void Promise.all(readiness).then(async (all) => {
  if (!all.every(Boolean)) {
    if (!stopping) logger.error('the service processes did not all become ready within 60 s');
    return;
  }
  const made = await workspaceMade;
  if (stopping) return;
  const workspace = made instanceof Error ? null : made;
  if (made instanceof Error) logger.error({ err: made }, 'the sandbox workspace could not be made; create one with npm run ops -- workspace create');
  // Another terminal finds this sandbox by its DATA_DIR and PORT: named when they are not the defaults.
  const ownSettings = opsEnv.length > 1 || config.dataDir !== '.data' || config.ports.api !== 8080;
  const invite = `    cd ${sh(process.cwd())} && ${opsEnv.join(' ')} DASHBOARD_URL=${sh(config.dashboardUrl)} npm run --silent ops -- owner invite --workspace ${workspace?.workspaceId ?? 'WORKSPACE_ID'} --email you@example.com`;
  process.stdout.write(
    [
      '',
      'Wallet service sandbox is running.',
      `  API base URL:  ${apiUrl}/v2`,
      `  API docs:      ${apiUrl}/docs`,
      `  chain-worker:  http://${host}:${config.ports.chainWorker}/healthz`,
      `  dispatcher:    http://${host}:${config.ports.dispatcher}/healthz`,
      `  database:      ${shownDatabase}`,
      ...Object.entries(nodeUrls).map(
        ([network, url]) => `  ${`${network}:`.padEnd(15)}${url}${imitations.length ? ` (provider imitation in front of ${chains?.rpcUrls[network as Network]})` : ''}`,
      ),
      ...(chains ? [`  chains file:   ${sandboxFilePath(dataDir)}`] : []),
      `  data:          ${dataDir}`,
      ...(workspace
        ? [
            `  workspace:     ${workspace.workspaceId} (${workspace.created ? 'made now' : 'made earlier'}), its test and live keys in ${workspace.file} (secrets shown only there: keep that file)`,
            `  Try it, in another terminal in ${sh(process.cwd())}${ownSettings ? ` (after: export ${[...opsEnv, `PORT=${config.ports.api}`].join(' ')})` : ''}:`,
            '    npm run api -- GET /v2/balances      (a signed request; docs/quickstart.md)',
            '    npm run listen                       (the workspace\'s webhooks, verified, on this machine)',
          ]
        : []),
      `  Dashboard:     ${config.dashboardUrl}`,
      '    To sign in as the workspace owner, invite yourself (the one-time link is printed, and mailed to a file in DATA_DIR/mail):',
      invite,
      '',
      '',
    ].join('\n'),
  );
});

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping the sandbox');
  const running = processes.map((p) => p.child).filter((c): c is ChildProcess => c !== null);
  running.forEach((c) => c.kill('SIGTERM'));
  const all = Promise.all(running.map(exited));
  const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 12_000))]);
  if (timedOut) running.forEach((c) => c.kill('SIGKILL'));
  await Promise.all(imitations.map((i) => i.close().catch(() => undefined)));
  await chains?.stop().catch(() => undefined);
  if (dbChild) {
    dbChild.kill('SIGTERM');
    await exited(dbChild);
  }
  process.stdout.write(`Wallet service sandbox stopped (${signal}${timedOut ? ', a process killed after 12 s' : ''}); its data is kept in ${dataDir}.\n`);
  process.exit(0);
}

process.off('SIGINT', noteEarlySignal);
process.off('SIGTERM', noteEarlySignal);
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
if (interrupted !== null) void shutdown(interrupted);
// Never outlive what started us: if npm (or the shell) goes away without
// passing its signal on, the sandbox stops as if told to.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void shutdown('parent-gone');
}, 1000).unref();
