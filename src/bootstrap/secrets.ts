// Where the encryption key and the master seed come from: the environment in
// production (required there, see config.ts), else DATA_DIR of the sandbox.
import { sandboxEncryptionKey, sandboxMasterSeed } from '../adapters/sandbox/sandbox-secrets.js';
import type { Config } from './config.js';

export interface Secrets {
  encryptionKey: Buffer;
  previousEncryptionKeys: Buffer[];
  masterSeed: string;
}

export function resolveSecrets(config: Config): Secrets {
  const key = config.encryptionKey ?? sandboxEncryptionKey(config.dataDir);
  const seed = config.masterSeed ?? sandboxMasterSeed(config.dataDir, key);
  return {
    encryptionKey: Buffer.from(key, 'base64'),
    previousEncryptionKeys: config.previousEncryptionKeys.map((k) => Buffer.from(k, 'base64')),
    masterSeed: seed,
  };
}
