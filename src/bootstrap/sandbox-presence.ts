// Whether DATA_DIR holds the sandbox a command outside production means to
// reach: its embedded database (unless DATABASE_URL) and its secrets (unless
// given in the environment). Creates nothing.
import { resolve } from 'node:path';
import { hasSandbox } from '../adapters/sandbox/cluster.js';
import { hasSandboxSecrets } from '../adapters/sandbox/sandbox-secrets.js';
import type { Config } from './config.js';

/** One line naming DATA_DIR when it holds no sandbox; null when it does. */
export function sandboxProblem(config: Config): string | null {
  const dir = resolve(config.dataDir);
  const howTo = 'start one with npm start, or set DATA_DIR to the directory npm start was given (its banner prints the command)';
  if (!config.databaseUrl && !hasSandbox(dir)) return `DATA_DIR: no sandbox in ${dir} yet; ${howTo}`;
  if (!hasSandboxSecrets(dir, { key: !config.encryptionKey, seed: !config.masterSeed })) {
    return `DATA_DIR: no sandbox secrets in ${dir}/secrets (or set SECRET_ENCRYPTION_KEY and MASTER_SEED); ${howTo}`;
  }
  return null;
}
