import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../src/bootstrap/config.js';

const key = randomBytes(32).toString('base64');
const seed = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const messageOf = (env: NodeJS.ProcessEnv): string => {
  try {
    parseConfig(env);
    return 'OK';
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
};

describe('configuration', () => {
  it('has sandbox defaults with no environment at all', () => {
    const c = parseConfig({});
    expect(c.production).toBe(false);
    expect(c.ports).toEqual({ api: 8080, chainWorker: 8081, dispatcher: 8082 });
    expect(c.dataDir).toBe('.data');
    expect(c.databaseUrl).toBeUndefined();
    expect(c.logLevel).toBe('info');
  });

  it('prepares the hottest statements unless DATABASE_PREPARED_STATEMENTS=false, and names the variable for anything else', () => {
    expect(parseConfig({}).preparedStatements).toBe(true);
    expect(parseConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).preparedStatements).toBe(false);
    expect(parseConfig({ DATABASE_PREPARED_STATEMENTS: 'true' }).preparedStatements).toBe(true);
    expect(messageOf({ DATABASE_PREPARED_STATEMENTS: 'no' })).toMatch(/^DATABASE_PREPARED_STATEMENTS: /);
  });

  it('derives the worker ports from PORT', () => {
    expect(parseConfig({ PORT: '9000' }).ports).toEqual({ api: 9000, chainWorker: 9001, dispatcher: 9002 });
  });

  it('names the variable and the problem of a malformed setting in one line', () => {
    expect(messageOf({ PORT: 'eighty' })).toMatch(/^PORT: /);
    expect(messageOf({ DATABASE_URL: 'mysql://x' })).toMatch(/^DATABASE_URL: must be a postgres:\/\/ URL$/);
    expect(messageOf({ SECRET_ENCRYPTION_KEY: 'c2hvcnQ=' })).toMatch(/^SECRET_ENCRYPTION_KEY: must be 32 bytes/);
    expect(messageOf({ LOG_LEVEL: 'loud' })).toMatch(/^LOG_LEVEL: /);
    expect(messageOf({ ETH_MAINNET_CONFIRMATIONS: '0' })).toMatch(/^ETH_MAINNET_CONFIRMATIONS: /);
    expect(messageOf({ PORT: 'eighty' })).not.toContain('\n');
  });

  it('keeps the api\'s metrics and readiness on an admin port in production (PORT+3 or ADMIN_PORT), on PORT in the sandbox', () => {
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', SECRET_ENCRYPTION_KEY: key, MASTER_SEED: seed };
    expect(parseConfig(prod).adminPort).toBe(8083);
    expect(parseConfig({ ...prod, PORT: '9000' }).adminPort).toBe(9003);
    expect(parseConfig({ ...prod, ADMIN_PORT: '9464' }).adminPort).toBe(9464);
    expect(parseConfig({}).adminPort).toBeNull();
    expect(parseConfig({ ADMIN_PORT: '9464' }).adminPort).toBe(9464);
    expect(messageOf({ ADMIN_PORT: 'x' })).toMatch(/^ADMIN_PORT: /);
  });

  it('formats logs for a person only where asked or at a terminal, never in production', () => {
    expect(parseConfig({}).logFormat).toBeUndefined();
    expect(parseConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(parseConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(messageOf({ LOG_FORMAT: 'colour' })).toMatch(/^LOG_FORMAT: /);
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', SECRET_ENCRYPTION_KEY: key, MASTER_SEED: seed };
    expect(parseConfig({ ...prod, LOG_FORMAT: 'pretty' }).logFormat).toBe('json');
  });

  it('calls loopback webhook receivers only when asked (npm start asks), private ones only when asked, neither in production', () => {
    // A deployment that forgets NODE_ENV calls public receivers only.
    expect(parseConfig({}).webhookReach).toBe('public');
    expect(parseConfig({ NODE_ENV: 'test' }).webhookReach).toBe('public');
    expect(parseConfig({ WEBHOOK_ALLOW_PRIVATE: 'loopback' }).webhookReach).toBe('loopback');
    expect(parseConfig({ WEBHOOK_ALLOW_PRIVATE: 'false' }).webhookReach).toBe('public');
    expect(parseConfig({ WEBHOOK_ALLOW_PRIVATE: 'true' }).webhookReach).toBe('private');
    expect(parseConfig({ NODE_ENV: 'test', WEBHOOK_ALLOW_PRIVATE: 'loopback' }).webhookReach).toBe('loopback');
    expect(messageOf({ WEBHOOK_ALLOW_PRIVATE: 'yes' })).toMatch(/^WEBHOOK_ALLOW_PRIVATE: /);
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', SECRET_ENCRYPTION_KEY: key, MASTER_SEED: seed };
    expect(parseConfig(prod).webhookReach).toBe('public');
    expect(messageOf({ ...prod, WEBHOOK_ALLOW_PRIVATE: 'true' })).toMatch(/^WEBHOOK_ALLOW_PRIVATE: /);
    expect(messageOf({ ...prod, WEBHOOK_ALLOW_PRIVATE: 'loopback' })).toMatch(/^WEBHOOK_ALLOW_PRIVATE: /);
  });

  it('throttles failed authentications at 1 a second with a burst of 20 unless told otherwise', () => {
    expect(parseConfig({}).authFailureLimits).toEqual({ ratePerSecond: 1, burst: 20 });
    expect(parseConfig({ AUTH_FAILURE_RATE_PER_SECOND: '5', AUTH_FAILURE_BURST: '50' }).authFailureLimits).toEqual({ ratePerSecond: 5, burst: 50 });
    expect(messageOf({ AUTH_FAILURE_BURST: '0' })).toMatch(/^AUTH_FAILURE_BURST: /);
  });

  it('requires the database, the encryption key and, where it signs, the seed in production, naming the missing one', () => {
    expect(messageOf({ NODE_ENV: 'production' })).toMatch(/^DATABASE_URL: required in production/);
    expect(messageOf({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' })).toMatch(/^SECRET_ENCRYPTION_KEY: required/);
    // The api and the dispatcher start without a seed; the chain-worker and ops ask for it.
    const noSeed = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', SECRET_ENCRYPTION_KEY: key };
    expect(parseConfig(noSeed).masterSeed).toBeUndefined();
    let message = '';
    try {
      parseConfig(noSeed, { requireSeed: true });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^MASTER_SEED: required/);
    const c = parseConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', SECRET_ENCRYPTION_KEY: key, MASTER_SEED: seed });
    expect(c.production).toBe(true);
    expect(c.host).toBe('0.0.0.0');
  });

  it('reads the seed from MASTER_SEED_FILE only when no one but its owner may read the file, never printing it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'seed-file-'));
    try {
      const file = join(dir, 'seed');
      writeFileSync(file, `  ${seed.replaceAll(' ', '\n')}\n`, { mode: 0o600 });
      const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', SECRET_ENCRYPTION_KEY: key, MASTER_SEED_FILE: file };
      expect(parseConfig(prod).masterSeed).toBe(seed);
      chmodSync(file, 0o640);
      expect(messageOf(prod)).toBe(`MASTER_SEED_FILE: ${file} may be read by others (mode 0640); make it the owner's only (chmod 600)`);
      chmodSync(file, 0o400);
      expect(parseConfig(prod).masterSeed).toBe(seed);
      expect(messageOf({ ...prod, MASTER_SEED: seed })).toBe('MASTER_SEED_FILE: set it or MASTER_SEED, not both');
      expect(messageOf({ ...prod, MASTER_SEED_FILE: join(dir, 'missing') })).toBe(`MASTER_SEED_FILE: cannot read ${join(dir, 'missing')} (ENOENT)`);
      const bad = join(dir, 'bad');
      writeFileSync(bad, 'not a mnemonic at all', { mode: 0o600 });
      const message = messageOf({ ...prod, MASTER_SEED_FILE: bad });
      expect(message).toBe(`MASTER_SEED_FILE: ${bad} does not hold a valid BIP-39 English mnemonic`);
      expect(message).not.toContain('mnemonic at all');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets migrations run in production with only DATABASE_URL', () => {
    expect(parseConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' }, { requireSecrets: false }).production).toBe(true);
  });

  it('refuses a seed that is not a valid BIP-39 mnemonic and a key that is not strict base64', () => {
    expect(messageOf({ MASTER_SEED: 'abandon '.repeat(12).trim() })).toMatch(/^MASTER_SEED: must be a valid BIP-39/);
    expect(messageOf({ SECRET_ENCRYPTION_KEY: `!${key.slice(1)}` })).toMatch(/^SECRET_ENCRYPTION_KEY: /);
  });

  it('refuses a contract for an asset of another chain, and a malformed contract address', () => {
    expect(messageOf({ TRON_TESTNET_USDT_ETH_CONTRACT: '0xdAC17F958D2ee523a2206206994597C13D831ec7' })).toBe(
      'TRON_TESTNET_USDT_ETH_CONTRACT: USDT_ETH is not an asset of TRON_TESTNET',
    );
    expect(messageOf({ ETH_TESTNET_USDC_ETH_CONTRACT: 'nope' })).toMatch(/^ETH_TESTNET_USDC_ETH_CONTRACT: must be a contract address/);
    expect(messageOf({ ETH_TESTNET_USDC_ETH_CONTRACT: '0xdac17f958d2ee523a2206206994597c13d831ec7' })).toMatch(/checksummed/);
    expect(messageOf({ TRON_TESTNET_USDT_TRON_CONTRACT: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' })).toBe('OK');
  });

  it('enables a mainnet only when its node URL is configured', () => {
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', SECRET_ENCRYPTION_KEY: key, MASTER_SEED: seed };
    const c = parseConfig({ ...production, ETH_MAINNET_RPC_URL: 'https://eth.example.org', ETH_TESTNET_USDT_ETH_CONTRACT: '0xdAC17F958D2ee523a2206206994597C13D831ec7' });
    expect(c.networks.find((n) => n.network === 'ETH_MAINNET')?.rpcUrl).toBe('https://eth.example.org');
    expect(c.networks.find((n) => n.network === 'ETH_TESTNET')?.contracts.USDT_ETH).toBe('0xdAC17F958D2ee523a2206206994597C13D831ec7');
    // docker compose passes an unset `${VAR:-}` as an empty string: that is no node, not a bad one.
    const empty = parseConfig({ ...production, BSC_MAINNET_RPC_URL: '' });
    expect(empty.networks.find((n) => n.network === 'BSC_MAINNET')!.rpcUrl).toBeNull();
    expect(messageOf({ ...production, BSC_MAINNET_RPC_URL: 'not a url' })).toBe('BSC_MAINNET_RPC_URL: must be an http(s) URL, or several separated by commas');
    expect(messageOf({ ...production, BSC_MAINNET_RPC_URL: 'https://a.example,ftp://b.example' })).toBe('BSC_MAINNET_RPC_URL: must be an http(s) URL, or several separated by commas');
    // Outside production the custody secrets are generated into DATA_DIR: never for mainnet addresses.
    expect(messageOf({ TRON_MAINNET_RPC_URL: 'https://tron.example.org' })).toMatch(/^TRON_MAINNET_RPC_URL: mainnets run only in production mode/);
  });

  it("gives the sandbox's testnets its local token contracts, and production testnets only configured ones", () => {
    const contractsOf = (env: NodeJS.ProcessEnv, network: string) => parseConfig(env).networks.find((n) => n.network === network)?.contracts;
    expect(contractsOf({}, 'ETH_TESTNET')).toEqual({
      USDT_ETH: '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35',
      USDC_ETH: '0xA15BB66138824a1c7167f5E85b957d04Dd34E468',
      EURC_ETH: '0xb19b36b1456E65E3A6D514D3F715f204BD59f431',
    });
    expect(contractsOf({}, 'TRON_TESTNET')).toEqual({ USDT_TRON: 'TLBeMi7NQkKVvLbGLHArkb3V17TrWTuNYq' });
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', SECRET_ENCRYPTION_KEY: key, MASTER_SEED: seed };
    expect(contractsOf(production, 'BSC_TESTNET')).toEqual({});
    expect(contractsOf({ ...production, BSC_TESTNET_USDT_BSC_CONTRACT: '0x337610d27c682E347C9cD60BD4b3b107C9d34dDd' }, 'BSC_TESTNET')).toEqual({
      USDT_BSC: '0x337610d27c682E347C9cD60BD4b3b107C9d34dDd',
    });
    expect(contractsOf(production, 'BSC_MAINNET')).toEqual({ USDT_BSC: '0x55d398326f99059fF775485246999027B3197955' });
  });

  it('takes the TRUST_PROXY values express understands, and names it when it would not', () => {
    for (const ok of ['true', 'false', '2', 'loopback', 'loopback, linklocal, uniquelocal', '10.0.0.1', '10.0.0.0/8', '10.0.0.0/255.0.0.0', '2001:db8::/32, ::1']) {
      expect(messageOf({ TRUST_PROXY: ok }), ok).toBe('OK');
    }
    for (const bad of ['garbage', '10.0.0.0/33', '10.0.0.0/255.0.255.0', '::1/129', '10.0.0.1/8/8', 'loopback,']) {
      expect(messageOf({ TRUST_PROXY: bad }), bad).toMatch(/^TRUST_PROXY: /);
    }
  });

  it('takes a log range per EVM network (<NETWORK>_LOG_RANGE), and refuses one that is not a block count or is for TRON', () => {
    expect(parseConfig({ ETH_TESTNET_LOG_RANGE: '50' }).networks.find((n) => n.network === 'ETH_TESTNET')!.logRange).toBe(50);
    expect(parseConfig({}).networks.find((n) => n.network === 'ETH_TESTNET')!.logRange).toBeNull();
    expect(() => parseConfig({ ETH_TESTNET_LOG_RANGE: '0' })).toThrow(/ETH_TESTNET_LOG_RANGE: must be an integer from 1 to 100000/);
    expect(() => parseConfig({ BSC_TESTNET_LOG_RANGE: 'lots' })).toThrow(/BSC_TESTNET_LOG_RANGE/);
    expect(() => parseConfig({ TRON_TESTNET_LOG_RANGE: '100' })).toThrow(/TRON blocks are read 100 at a time/);
  });
});
