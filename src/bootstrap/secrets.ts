// Where the encryption key and the master seed come from: the environment in
// production (required there, see config.ts), else DATA_DIR of the sandbox.
// Only a process that signs loads the seed (ADR 0026): the chain-worker and
// the operator's CLI; the api takes one only from its own environment, never
// from the sandbox's file; the dispatcher never takes one.
import { sandboxEncryptionKey, sandboxMasterSeed } from '../adapters/sandbox/sandbox-secrets.js';
import { StartupError, type Config } from './config.js';

export interface Secrets {
  encryptionKey: Buffer;
  previousEncryptionKeys: Buffer[];
  /** Undefined in a process that holds no seed. */
  masterSeed: string | undefined;
}

/**
 * What a process does with the master seed: `required` (the chain-worker, ops:
 * MASTER_SEED or MASTER_SEED_FILE, or the sandbox's generated one),
 * `if-configured` (the api: MASTER_SEED in its own environment only), `none`
 * (the dispatcher, the sandbox supervisor's children that never sign).
 */
export type SeedUse = 'required' | 'if-configured' | 'none';

export function resolveSecrets(config: Config, seedUse?: 'required'): Secrets & { masterSeed: string };
export function resolveSecrets(config: Config, seedUse: SeedUse): Secrets;
export function resolveSecrets(config: Config, seedUse: SeedUse = 'required'): Secrets {
  const key = config.encryptionKey ?? sandboxEncryptionKey(config.dataDir);
  let seed: string | undefined;
  if (seedUse !== 'none') seed = config.masterSeed;
  if (seed === undefined && seedUse === 'required') {
    if (config.production) {
      throw new StartupError('MASTER_SEED: required in production by the processes that sign (NODE_ENV=production); or MASTER_SEED_FILE, a file only its owner may read');
    }
    seed = sandboxMasterSeed(config.dataDir, key);
  }
  return {
    encryptionKey: Buffer.from(key, 'base64'),
    previousEncryptionKeys: config.previousEncryptionKeys.map((k) => Buffer.from(k, 'base64')),
    masterSeed: seed,
  };
}
