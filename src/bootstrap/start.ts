// `npm start`: the local sandbox. Embedded PostgreSQL in DATA_DIR (unless
// DATABASE_URL), migrations, then api, chain-worker and dispatcher as separate
// OS processes, supervised: a crashed one is restarted with backoff; Ctrl-C or
// SIGTERM stops the service processes, then the database, and exits 0.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../adapters/logging/logger.js';
import { loadConfigOrExit } from './config.js';
import { prepareDatabase } from './prepare-database.js';
import { resolveSecrets } from './secrets.js';

const here = dirname(fileURLToPath(import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const execArgv = ext === '.ts' ? ['--import', 'tsx'] : [];
const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, name: 'supervisor' });

mkdirSync(config.dataDir, { recursive: true });
resolveSecrets(config); // generates the sandbox's key and seed on the first run

function spawnChild(name: string, env: NodeJS.ProcessEnv): ChildProcess {
  // Own process group (detached): a terminal's Ctrl-C reaches only this
  // supervisor, which then stops the children in order.
  return fork(join(here, `${name}${ext}`), [], { execArgv, env, detached: true, stdio: 'inherit' });
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
  name: string;
  child: ChildProcess | null;
  restarts: number;
  startedAt: number;
}

const { url: databaseUrl, child: dbChild } = await startDatabase();
const { applied } = await prepareDatabase(databaseUrl);
if (applied.length) logger.info({ applied }, 'migrations applied');

const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: config.dataDir };
// The local sandbox confirms after 2 blocks (D12) unless told otherwise.
for (const network of ['ETH_TESTNET', 'BSC_TESTNET', 'TRON_TESTNET']) env[`${network}_CONFIRMATIONS`] ??= '2';
const processes: Supervised[] = ['api', 'chain-worker', 'dispatcher'].map((name) => ({
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

const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
const apiUrl = `http://${host}:${config.ports.api}`;
// The banner goes out once all three processes answer /readyz.
const readiness = [
  `${apiUrl}/readyz`,
  `http://${host}:${config.ports.chainWorker}/readyz`,
  `http://${host}:${config.ports.dispatcher}/readyz`,
].map((url) => waitReady(url, 60_000));
void Promise.all(readiness).then((all) => {
  const ok = all.every(Boolean);
  if (ok) {
    process.stdout.write(
      `\nWallet service sandbox is running.\n  API base URL:  ${apiUrl}/v2\n` +
        `  chain-worker:  http://${host}:${config.ports.chainWorker}/healthz\n` +
        `  dispatcher:    http://${host}:${config.ports.dispatcher}/healthz\n` +
        `  data:          ${config.dataDir}\n  Create a workspace: npm run ops -- workspace create --name demo --json\n\n`,
    );
  } else if (!stopping) {
    logger.error('the service processes did not all become ready within 60 s');
  }
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
  if (dbChild) {
    dbChild.kill('SIGTERM');
    await exited(dbChild);
  }
  process.exit(0);
}

process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
