// `npm run ops -- <command>`: the operator CLI (D11). It talks to the same
// database as the service: DATABASE_URL, or the sandbox's embedded server of
// DATA_DIR (started for the command when `npm start` is not running).
import 'reflect-metadata';
import { CHAIN_COMMANDS } from '../adapters/cli/chain-commands.js';
import { MONEY_COMMANDS } from '../adapters/cli/money-commands.js';
import { WORKSPACE_COMMANDS } from '../adapters/cli/workspace-commands.js';
import { findCommand, refuseUnknownCommand, runOps } from '../adapters/cli/run-ops.js';
import type { OpsCommand } from '../adapters/cli/command.js';
import { createLogger } from '../adapters/logging/logger.js';
import { startEmbeddedPostgres } from '../adapters/sandbox/embedded-postgres.js';
import { loadConfigOrExit } from './config.js';
import { openInfrastructure } from './infrastructure.js';
import { prepareDatabase } from './prepare-database.js';

export const OPS_COMMANDS: OpsCommand[] = [...WORKSPACE_COMMANDS, ...CHAIN_COMMANDS, ...MONEY_COMMANDS];

const argv = process.argv.slice(2);
const io = { out: (s: string) => process.stdout.write(`${s}\n`), err: (s: string) => process.stderr.write(`${s}\n`) };
if (!findCommand(OPS_COMMANDS, argv)) process.exit(refuseUnknownCommand(OPS_COMMANDS, argv, io));

const config = loadConfigOrExit();
const db = config.databaseUrl
  ? { url: config.databaseUrl, stop: async () => {} }
  : await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
if (!config.databaseUrl) await prepareDatabase(db.url);
// Logs go to stderr: stdout carries only the command's result.
const logger = createLogger({ level: 'warn', name: 'ops', destination: 2 });
const infra = await openInfrastructure({ ...config, databaseUrl: db.url }, { processName: 'ops', runsWorkers: false, logger });
const code = await runOps(OPS_COMMANDS, argv, { resolve: (t) => infra.container.resolve(t) }, io).finally(async () => {
  await infra.close();
  await db.stop();
});
process.exit(code);
