// `npm run ops -- <command>`: the operator CLI (docs/operations.md). It talks
// to the same database as the service: DATABASE_URL, or the sandbox's
// embedded server of DATA_DIR (started for the command when `npm start` is
// not running). Outside production it refuses a DATA_DIR that holds no
// sandbox, rather than creating a second one whose keys the running service
// would not know. Help and a bad command line are answered before any of it:
// no database is started for them.
import 'reflect-metadata';
import type { InjectionToken } from 'tsyringe';
import { findCommand, helpFor, parseCommandLine, refuseCommandLine, refuseUnknownCommand, reportFailure, runParsed } from '../adapters/cli/run-ops.js';
import type { OpsMode } from '../adapters/cli/command.js';
import { OPS_COMMANDS } from '../adapters/cli/ops-commands.js';
import { terminalProgress } from '../adapters/cli/progress.js';
import type { NodeProbe } from '../domain/chains/node-probe.js';
import type { Config } from './config.js';
import type { Infrastructure } from './infrastructure.js';

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const io = { out: (s: string) => process.stdout.write(`${s}\n`), err: (s: string) => process.stderr.write(`${s}\n`) };
/** A bare chain (--chain ETH) is the mainnet in production, the testnet elsewhere (production: NODE_ENV, as the configuration reads it). */
const mode: OpsMode = { side: process.env.NODE_ENV === 'production' ? 'live' : 'test' };
const help = helpFor(OPS_COMMANDS, argv, mode);
if (help !== null) {
  io.out(help);
  process.exit(0);
}
const command = findCommand(OPS_COMMANDS, argv);
if (!command) process.exit(refuseUnknownCommand(OPS_COMMANDS, argv, io));
const parsed = parseCommandLine(command, argv, mode);
if (!parsed.ok) process.exit(refuseCommandLine(command, parsed.message, json, io, mode));

// The rest loads only for a command to run: help and a refused command line answer in half the time.
const [{ createMailer }, { TOKENS }, { createLogger }, { ConfigError, StartupError, parseConfig, reasonOf }, { openInfrastructure }, { prepareDatabase }, { sandboxProblem }] =
  await Promise.all([
    import('../adapters/mail/mailer.js'),
    import('../application/tokens.js'),
    import('../adapters/logging/logger.js'),
    import('./config.js'),
    import('./infrastructure.js'),
    import('./prepare-database.js'),
    import('./sandbox-presence.js'),
  ]);

/** A failure before the command runs: with --json still one JSON object on stdout, like every result. */
function failBeforeRunning(code: string, message: string): never {
  reportFailure(io, json, code, message, message);
  process.exit(1);
}

let config: Config;
try {
  config = parseConfig(process.env, { requireSeed: true });
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  failBeforeRunning('VALIDATION_ERROR', `Configuration error: ${err.message}`);
}

if (!config.production) {
  const problem = sandboxProblem(config);
  if (problem) failBeforeRunning('VALIDATION_ERROR', `Configuration error: ${problem}`);
}

let db: { url: string; stop: () => Promise<void> } = { url: config.databaseUrl ?? '', stop: async () => {} };
let infra: Infrastructure;
try {
  if (!config.databaseUrl) {
    // Loaded only here: the sandbox's tooling is not installed in production.
    const { startEmbeddedPostgres } = await import('../adapters/sandbox/embedded-postgres.js');
    db = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
    await prepareDatabase(db.url);
  }
  // Logs go to stderr: stdout carries only the command's result.
  const logger = createLogger({ level: 'warn', name: 'ops', destination: 2 });
  infra = await openInfrastructure({ ...config, databaseUrl: db.url }, { processName: 'ops', runsWorkers: false, logger, seed: 'required' });
} catch (err) {
  await db.stop().catch(() => {});
  if (err instanceof StartupError) failBeforeRunning('DATABASE_ERROR', `Startup error: ${err.message}`);
  failBeforeRunning('DATABASE_ERROR', `Startup error: the database is unavailable (${reasonOf(err)})`);
}
// The chain adapters (tronweb, viem's clients) load only for the command that reads the nodes: a second less for every other.
const readsNodes = command.readsNodes === true;
const readers = readsNodes ? await (await import('./chain-ports.js')).balanceReaders(config) : [];
infra.container.register(TOKENS.BalanceReaders, { useValue: readers });
// Invitations are mailed from here (ops owner invite), over the operator notices' mailer.
infra.container.register(TOKENS.Mailer, {
  useValue: createMailer({ ...config.mail, dataDir: config.dataDir, production: config.production }, createLogger({ level: 'warn', name: 'ops', destination: 2 })),
});
infra.container.register(TOKENS.NodeProbes, { useValue: readers.filter((r) => typeof (r as Partial<NodeProbe>).probe === 'function') });
const ctx = { resolve: <T>(t: InjectionToken<T>) => infra.container.resolve(t), boss: infra.boss, mode, progress: terminalProgress(process.stderr) };
const code = await runParsed(command, parsed.input, json, ctx, io).finally(async () => {
  await infra.close();
  await db.stop();
});
process.exit(code);
