import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../../../src/bootstrap/child-env.js';
import { parseConfig } from '../../../src/bootstrap/config.js';
import { resolveSecrets } from '../../../src/bootstrap/secrets.js';

const SEED = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('the seed only where signing happens', () => {
  it('npm start gives MASTER_SEED and MASTER_SEED_FILE to the chain-worker only', () => {
    const env = { PATH: '/bin', MASTER_SEED: SEED, MASTER_SEED_FILE: '/run/secrets/seed', DATA_DIR: '/d' };
    expect(childEnv('chain-worker', env)).toEqual(env);
    for (const name of ['api', 'dispatcher', 'sandbox-db'] as const) {
      expect(childEnv(name, env)).toEqual({ PATH: '/bin', DATA_DIR: '/d' });
    }
    expect(env.MASTER_SEED).toBe(SEED); // the supervisor's own environment is left as it was
  });

  it("never reads or creates the sandbox's seed file for the api or the dispatcher; the chain-worker generates it", () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'seed-use-'));
    try {
      const config = parseConfig({ DATA_DIR: dataDir });
      const seedFile = join(dataDir, 'secrets', 'master-seed.enc');
      expect(resolveSecrets(config, 'if-configured').masterSeed).toBeUndefined();
      expect(resolveSecrets(config, 'none').masterSeed).toBeUndefined();
      expect(existsSync(seedFile)).toBe(false);
      const generated = resolveSecrets(config, 'required').masterSeed;
      expect(generated.split(' ')).toHaveLength(24);
      expect(existsSync(seedFile)).toBe(true);
      // Even with the file there, the api and the dispatcher still take none.
      expect(resolveSecrets(config, 'if-configured').masterSeed).toBeUndefined();
      expect(resolveSecrets(config, 'none').masterSeed).toBeUndefined();
      // A seed in the process's own environment: the api may use it, the dispatcher never.
      const given = parseConfig({ DATA_DIR: dataDir, MASTER_SEED: SEED });
      expect(resolveSecrets(given, 'if-configured').masterSeed).toBe(SEED);
      expect(resolveSecrets(given, 'none').masterSeed).toBeUndefined();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start a signing process in production without a seed, in one line', () => {
    const config = parseConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', SECRET_ENCRYPTION_KEY: 'A'.repeat(43) + '=' });
    expect(resolveSecrets(config, 'if-configured').masterSeed).toBeUndefined();
    expect(() => resolveSecrets(config, 'required')).toThrow(/^MASTER_SEED: required in production by the processes that sign/);
  });
});
