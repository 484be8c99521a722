// Secrets of the local sandbox, generated once into DATA_DIR/secrets (0700)
// and reused, each file 0600: the encryption key, the master seed (stored
// encrypted with it) and the embedded PostgreSQL's password.
// Production never comes here: there both come from the environment.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { AesGcmCipher } from '../crypto/aes-gcm-cipher.js';

/**
 * Writes `content` unless the file exists; either way returns what the file holds. The file appears whole
 * (written aside, then linked into place), so a process starting at the same moment never reads it empty.
 */
function createOnce(path: string, content: () => string): string {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(aside, content(), { flag: 'wx', mode: 0o600 });
    linkSync(aside, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(aside, { force: true });
  }
  const held = readFileSync(path, 'utf8').trim();
  if (held === '') throw new Error(`${path} is empty: delete it (a new one is made) or restore it`);
  return held;
}

export function sandboxEncryptionKey(dataDir: string): string {
  const dir = join(dataDir, 'secrets');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return createOnce(join(dir, 'encryption.key'), () => randomBytes(32).toString('base64'));
}

export function sandboxMasterSeed(dataDir: string, encryptionKey: string): string {
  const cipher = new AesGcmCipher(Buffer.from(encryptionKey, 'base64'));
  const dir = join(dataDir, 'secrets');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const sealed = createOnce(join(dir, 'master-seed.enc'), () => cipher.encrypt(generateMnemonic(wordlist, 256)));
  return cipher.decrypt(sealed);
}

/** The embedded PostgreSQL's superuser password: random, never the well-known default. */
export function sandboxDatabasePassword(dataDir: string): string {
  const dir = join(dataDir, 'secrets');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return createOnce(join(dir, 'postgres.password'), () => randomBytes(24).toString('base64url'));
}

/** True when DATA_DIR already holds the sandbox secrets asked for. Creates nothing. */
export function hasSandboxSecrets(dataDir: string, needs: { key: boolean; seed: boolean }): boolean {
  const dir = join(dataDir, 'secrets');
  return (!needs.key || existsSync(join(dir, 'encryption.key'))) && (!needs.seed || existsSync(join(dir, 'master-seed.enc')));
}
