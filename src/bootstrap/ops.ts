// `npm run ops -- <command>`: the operator CLI (docs/operations.md). It talks
// to the same database as the service: DATABASE_URL, or the sandbox's
// embedded server of DATA_DIR (started for the command when `npm start` is
// not running). Outside production it refuses a DATA_DIR that holds no
// sandbox, rather than creating a second one whose keys the running service
// would not know.
import 'reflect-metadata';
import { CHAIN_COMMANDS } from '../adapters/cli/chain-commands.js';
import { DEPOSIT_COMMANDS } from '../adapters/cli/deposit-commands.js';
import { MEMBER_COMMANDS } from '../adapters/cli/member-commands.js';
import { createMailer } from '../adapters/mail/mailer.js';
import { UNEXPECTED_COMMANDS } from '../adapters/cli/unexpected-commands.js';
import { MONEY_COMMANDS } from '../adapters/cli/money-commands.js';
import { SECURITY_COMMANDS } from '../adapters/cli/security-commands.js';
import { SWEEP_COMMANDS } from '../adapters/cli/sweep-commands.js';
import { TREASURY_COMMANDS } from '../adapters/cli/treasury-commands.js';
import { WITHDRAWAL_COMMANDS } from '../adapters/cli/withdrawal-commands.js';
import { FAUCET_COMMANDS } from '../adapters/cli/faucet-commands.js';
import { COMMITMENT_COMMANDS } from '../adapters/cli/commitment-commands.js';
import { WORKSPACE_COMMANDS } from '../adapters/cli/workspace-commands.js';
import { RECONCILE_COMMANDS } from '../adapters/cli/reconcile-commands.js';
import { TOKENS } from '../application/tokens.js';
import { findCommand, helpFor, refuseUnknownCommand, reportFailure, runOps } from '../adapters/cli/run-ops.js';
import type { OpsCommand } from '../adapters/cli/command.js';
import { createLogger } from '../adapters/logging/logger.js';
import type { NodeProbe } from '../domain/chains/node-probe.js';
import { ConfigError, StartupError, parseConfig, reasonOf, type Config } from './config.js';
import { openInfrastructure, type Infrastructure } from './infrastructure.js';
import { prepareDatabase } from './prepare-database.js';
import { sandboxProblem } from './sandbox-presence.js';

export const OPS_COMMANDS: OpsCommand[] = [...WORKSPACE_COMMANDS, ...CHAIN_COMMANDS, ...MONEY_COMMANDS, ...SECURITY_COMMANDS, ...DEPOSIT_COMMANDS, ...UNEXPECTED_COMMANDS, ...MEMBER_COMMANDS, ...SWEEP_COMMANDS, ...TREASURY_COMMANDS, ...WITHDRAWAL_COMMANDS, ...FAUCET_COMMANDS, ...COMMITMENT_COMMANDS, ...RECONCILE_COMMANDS];

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const io = { out: (s: string) => process.stdout.write(`${s}\n`), err: (s: string) => process.stderr.write(`${s}\n`) };
const help = helpFor(OPS_COMMANDS, argv);
if (help !== null) {
  io.out(help);
  process.exit(0);
}
if (!findCommand(OPS_COMMANDS, argv)) process.exit(refuseUnknownCommand(OPS_COMMANDS, argv, io));

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
const readsNodes = findCommand(OPS_COMMANDS, argv)?.readsNodes === true;
const readers = readsNodes ? await (await import('./chain-ports.js')).balanceReaders(config) : [];
infra.container.register(TOKENS.BalanceReaders, { useValue: readers });
// Invitations are mailed from here (ops owner invite), over the operator notices' mailer.
infra.container.register(TOKENS.Mailer, {
  useValue: createMailer({ ...config.mail, dataDir: config.dataDir, production: config.production }, createLogger({ level: 'warn', name: 'ops', destination: 2 })),
});
infra.container.register(TOKENS.NodeProbes, { useValue: readers.filter((r) => typeof (r as Partial<NodeProbe>).probe === 'function') });
const code = await runOps(OPS_COMMANDS, argv, { resolve: (t) => infra.container.resolve(t), boss: infra.boss }, io).finally(async () => {
  await infra.close();
  await db.stop();
});
process.exit(code);
