// The one configuration module: every setting comes from the environment and
// is validated here (the per-network variables in network-config.ts, the
// errors in config-errors.ts). A missing or malformed setting stops the
// process at start with one line naming the variable and what is wrong.
import { readFileSync, statSync } from 'node:fs';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { NETWORKS, sideOf, type Network } from '../domain/money/networks.js';
import type { WebhookReach } from '../domain/webhooks/url-safety.js';
import type { NetworkSetting } from '../adapters/chains/network-settings.js';
import { ConfigError } from './config-errors.js';
import { networkSettings, startBlocks } from './network-config.js';

export { ConfigError, StartupError, reasonOf } from './config-errors.js';

const port = z.coerce.number().int().min(1).max(65535);
const BASE64_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;
const base64Key = z.string().regex(BASE64_32_BYTES, 'must be 32 bytes, base64-encoded (e.g. openssl rand -base64 32)');

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: port.default(8080),
  HOST: z.string().min(1).optional(),
  CHAIN_WORKER_PORT: port.optional(),
  SANDBOX_ETH_PORT: port.optional(),
  SANDBOX_BSC_PORT: port.optional(),
  SANDBOX_TRON_PORT: port.optional(),
  TRON_API_KEY: z.string().min(1).max(200).optional(),
  DISPATCHER_PORT: port.optional(),
  ADMIN_PORT: port.optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  EMBEDDED_PG_PORT: port.optional(),
  DATABASE_PREPARED_STATEMENTS: z.enum(['true', 'false']).default('true'),
  SECRET_ENCRYPTION_KEY: base64Key.optional(),
  SECRET_ENCRYPTION_PREVIOUS_KEYS: z
    .string()
    .optional()
    .refine(
      (s) => !s || s.split(',').every((k) => BASE64_32_BYTES.test(k.trim())),
      'must be a comma-separated list of base64 32-byte keys',
    ),
  MASTER_SEED: z
    .string()
    .optional()
    .refine((s) => !s || validateMnemonic(s.trim().split(/\s+/).join(' '), wordlist), 'must be a valid BIP-39 English mnemonic'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(60000).default(8000),
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0.01).max(100000).default(50),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).max(1000000).default(100),
  AUTH_FAILURE_RATE_PER_SECOND: z.coerce.number().min(0.001).max(100000).default(1),
  AUTH_FAILURE_BURST: z.coerce.number().int().min(1).max(1000000).default(20),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false', 'loopback']).optional(),
  RECONCILE_HOLD_PAYOUTS: z.enum(['true', 'false']).default('true'),
  RECONCILE_EVERY_MINUTES: z.coerce.number().int().min(1).max(1440).default(10),
  RECONCILE_WINDOW_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  TREASURY_MIN_COOLING_OFF_HOURS: z.coerce.number().int().min(0).max(8760).optional(),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(2).max(2000).default(100),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10),
  WEBHOOK_TICK_MS: z.coerce.number().int().min(50).max(60000).default(5000),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(20).max(10000).default(200),
  WEBHOOK_LEASE_SECONDS: z.coerce.number().int().min(15).max(3600).default(30),
  SCAN_POLL_MS: z.coerce.number().int().min(20).max(60000).optional(),
  SCAN_BATCH_BLOCKS: z.coerce.number().int().min(1).max(5000).default(100),
  SCAN_LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(30),
  SEND_INTERVAL_MS: z.coerce.number().int().min(50).max(60000).optional(),
  TRANSFER_REPLACE_AFTER_SECONDS: z.coerce.number().int().min(1).max(86400).optional(),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).max(320).default('Wallet service <no-reply@wallet-service.local>'),
  DASHBOARD_URL: z
    .url({ protocol: /^https?$/, message: 'must be the http(s) address owners reach the dashboard at, e.g. https://console.example.com/dashboard' })
    .max(500)
    .optional(),
  TRUST_PROXY: z
    .string()
    .regex(/^[A-Za-z0-9.:/,\s-]*$/, 'must be true, false, a hop count, or a comma-separated list of addresses, CIDRs or loopback/linklocal/uniquelocal')
    .default('false'),
});

export type RawConfig = z.infer<typeof schema>;

export interface Config {
  production: boolean;
  host: string;
  ports: { api: number; chainWorker: number; dispatcher: number };
  /** The sandbox's local nodes: SANDBOX_ETH_PORT (PORT+4), SANDBOX_BSC_PORT (PORT+5) and the TRON stand-in's SANDBOX_TRON_PORT (PORT+6). */
  sandboxPorts: { eth: number; bsc: number; tron: number };
  /** Sent to the TRON nodes as TRON-PRO-API-KEY (TronGrid); never logged. */
  tronApiKey?: string;
  /**
   * Where the api serves /metrics and /readyz when they are kept off the
   * public port: PORT+3 by default in production, ADMIN_PORT when set; null
   * (everything on PORT) in the sandbox.
   */
  adminPort: number | null;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Whether the hottest statements are prepared once per connection (ADR 0039); false behind a pooler that cannot keep them. */
  preparedStatements: boolean;
  /** EMBEDDED_PG_PORT when set; otherwise the sandbox picks a free port and remembers it in DATA_DIR. */
  embeddedPgPort: number | undefined;
  encryptionKey: string | undefined;
  previousEncryptionKeys: string[];
  masterSeed: string | undefined;
  logLevel: string;
  /** `pretty` or `json` as asked (never pretty in production); unset: pretty when npm start's stdout is a terminal. */
  logFormat: 'json' | 'pretty' | undefined;
  shutdownTimeoutMs: number;
  rateLimit: { perSecond: number; burst: number };
  /**
   * How long a client may take to send a whole request (headers and body:
   * 64 KiB at most) and its headers alone, before 408: a slow sender cannot
   * hold a connection for node's default five minutes.
   */
  httpTimeouts: { requestMs: number; headersMs: number; checkEveryMs: number };
  /** Lets webhook endpoints use private addresses and plain http: local receivers in the sandbox and tests only. */
  /** Which webhook receivers may be called (docs/api.md#webhook-endpoints). */
  webhookReach: WebhookReach;
  /**
   * The dispatcher: attempts in flight per process, per endpoint and process,
   * how often it looks for due retries and polls for new deliveries, and how
   * long a claim on a delivery lasts without renewal (longer than the 10 s
   * receiver time-out).
   */
  webhookDispatch: { concurrency: number; perEndpoint: number; tickMs: number; pollMs: number; leaseSeconds: number };
  /**
   * The deposit scanners (docs/operations.md#deposits): how often a caught-up
   * scanner asks for the head (200 ms in the sandbox, 1 s in production), most
   * blocks per step, the lease of a network's scanner, how many recent block
   * hashes are kept for reorg checks, the worst pause while a node fails, and
   * where each network's very first scan starts (the head when not set).
   */
  scanner: {
    pollMs: number;
    batchBlocks: number;
    leaseSeconds: number;
    keepBlocks: number;
    maxBackoffMs: number;
    startBlocks: Partial<Record<Network, bigint>>;
  };
  /**
   * The sending loop (docs/operations.md#sweeps-and-the-gas-tank): how often
   * it steps (500 ms in the sandbox, 2 s in production), after how long an
   * unmined transaction is replaced with higher fees at its nonce (30 s in the
   * sandbox, 3 minutes in production), how often a pending one is broadcast
   * again, and how many transfers or sweeps one step looks at.
   */
  sending: { intervalMs: number; replaceAfterMs: number; rebroadcastAfterMs: number; batch: number; concurrency: number; maxBackoffMs: number };
  /** The reconciliation with the chain (docs/operations.md#reconciliation-with-the-chain). */
  reconcile: { holdPayouts: boolean; everyMinutes: number; windowDays: number };
  /** Operator notices: over SMTP when SMTP_URL is set, else written as files under DATA_DIR/mail outside production. */
  mail: { smtpUrl: string | undefined; from: string };
  /** Where owners reach the dashboard (ADR 0033): DASHBOARD_URL, or the api's own address + /dashboard; no trailing slash. */
  dashboardUrl: string;
  /** Buckets of failed authentications per source address (and ten times that per key id). */
  authFailureLimits: { ratePerSecond: number; burst: number };
  /** The shortest cooling-off a new cold address may have (ADR 0032): 24 h in production, 0 in the sandbox unless set. */
  treasuryMinCoolingOffHours: number;
  /** express's trust-proxy setting: whose X-Forwarded-For decides the client address. */
  trustProxy: boolean | number | string;
  networks: NetworkSetting[];
}


const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** One entry of express's trust-proxy list: a preset name, an IP, or a range as IP/bits or IP/netmask. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_NAMES.has(entry)) return true;
  const [ip = '', range, ...rest] = entry.split('/');
  if (rest.length > 0 || !ipaddr.isValid(ip)) return false;
  if (range === undefined) return true;
  const max = ipaddr.parse(ip).kind() === 'ipv4' ? 32 : 128;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= max;
  return max === 32 && ipaddr.IPv4.isValid(range) && ipaddr.IPv4.parse(range).prefixLengthFromSubnetMask() !== null;
}

function trustProxySetting(v: string): boolean | number | string {
  const t = v.trim();
  if (t === '' || t === 'false') return false;
  if (t === 'true') return true;
  if (/^\d+$/.test(t)) return Number(t);
  const bad = t.split(',').map((e) => e.trim()).find((e) => !isProxyEntry(e));
  if (bad !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY: "${bad}" is not a proxy address, range or preset (true, false, a hop count, loopback, linklocal, uniquelocal, IPs or CIDRs, comma-separated)`,
    );
  }
  return t;
}

export interface ParseOptions {
  /** False for tools that never touch secrets (migrations): production then needs only DATABASE_URL. */
  requireSecrets?: boolean;
  /**
   * True for the processes that sign (the chain-worker) and the operator's
   * CLI: production then needs MASTER_SEED or MASTER_SEED_FILE too. The api
   * and the dispatcher start without a seed (ADR 0026).
   */
  requireSeed?: boolean;
}

/**
 * MASTER_SEED_FILE: the mnemonic read from a file that only its owner may
 * read (mode 0600 or 0400), instead of the environment, where every child
 * process and crash dump would see it. Its content is never printed.
 */
function seedFromFile(path: string, alsoInEnv: string | undefined): string {
  if (alsoInEnv) throw new ConfigError('MASTER_SEED_FILE: set it or MASTER_SEED, not both');
  let mode: number;
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new ConfigError(`MASTER_SEED_FILE: ${path} is not a file`);
    mode = st.mode & 0o777;
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`MASTER_SEED_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if ((mode & 0o077) !== 0) {
    throw new ConfigError(`MASTER_SEED_FILE: ${path} may be read by others (mode 0${mode.toString(8)}); make it the owner's only (chmod 600)`);
  }
  const mnemonic = text.trim().split(/\s+/).join(' ');
  if (!validateMnemonic(mnemonic, wordlist)) throw new ConfigError(`MASTER_SEED_FILE: ${path} does not hold a valid BIP-39 English mnemonic`);
  return mnemonic;
}

/** Parses the environment. Throws ConfigError with a one-line message. */
/**
 * WEBHOOK_ALLOW_PRIVATE as a reach: `true` every address, `loopback` this machine's, `false` or unset public
 * only. `npm start` sets `loopback` for its processes; a deployment that forgets NODE_ENV stays public.
 */
function webhookReach(setting: 'true' | 'false' | 'loopback' | undefined): WebhookReach {
  if (setting === 'true') return 'private';
  if (setting === 'loopback') return 'loopback';
  return 'public';
}

export function parseConfig(env: NodeJS.ProcessEnv, opts: ParseOptions = {}): Config {
  if (env.MASTER_SEED_FILE) env = { ...env, MASTER_SEED: seedFromFile(env.MASTER_SEED_FILE, env.MASTER_SEED) };
  const res = schema.safeParse(env);
  if (!res.success) {
    const issue = res.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`${name}: ${issue.message}`);
  }
  const c = res.data;
  const production = c.NODE_ENV === 'production';
  if (production) {
    const required = [
      ['DATABASE_URL', c.DATABASE_URL],
      ['SECRET_ENCRYPTION_KEY', c.SECRET_ENCRYPTION_KEY],
      ['MASTER_SEED', c.MASTER_SEED],
    ] as const;
    const needed = opts.requireSecrets === false ? required.slice(0, 1) : opts.requireSeed ? required : required.slice(0, 2);
    for (const [name, value] of needed) {
      if (!value) throw new ConfigError(`${name}: required in production (NODE_ENV=production)${name === 'MASTER_SEED' ? '; or MASTER_SEED_FILE, a file only its owner may read' : ''}`);
    }
  }
  if (production && (c.WEBHOOK_ALLOW_PRIVATE === 'true' || c.WEBHOOK_ALLOW_PRIVATE === 'loopback')) {
    throw new ConfigError('WEBHOOK_ALLOW_PRIVATE: private and loopback webhook receivers are for the local sandbox and tests, never production');
  }
  // Real money only with real custody: outside production the seed and the
  // encryption key are generated into DATA_DIR, fine for testnets, never for
  // mainnet deposit addresses.
  if (!production) {
    const mainnet = NETWORKS.find((n) => sideOf(n) === 'live' && env[`${n}_RPC_URL`]);
    if (mainnet) {
      throw new ConfigError(`${mainnet}_RPC_URL: mainnets run only in production mode (NODE_ENV=production, with MASTER_SEED and SECRET_ENCRYPTION_KEY)`);
    }
  }
  return {
    production,
    host: c.HOST ?? (production ? '0.0.0.0' : '127.0.0.1'),
    ports: {
      api: c.PORT,
      chainWorker: c.CHAIN_WORKER_PORT ?? c.PORT + 1,
      dispatcher: c.DISPATCHER_PORT ?? c.PORT + 2,
    },
    sandboxPorts: { eth: c.SANDBOX_ETH_PORT ?? c.PORT + 4, bsc: c.SANDBOX_BSC_PORT ?? c.PORT + 5, tron: c.SANDBOX_TRON_PORT ?? c.PORT + 6 },
    tronApiKey: c.TRON_API_KEY || undefined,
    adminPort: c.ADMIN_PORT ?? (production ? c.PORT + 3 : null),
    dataDir: c.DATA_DIR,
    databaseUrl: c.DATABASE_URL,
    preparedStatements: c.DATABASE_PREPARED_STATEMENTS === 'true',
    embeddedPgPort: c.EMBEDDED_PG_PORT,
    encryptionKey: c.SECRET_ENCRYPTION_KEY,
    previousEncryptionKeys: c.SECRET_ENCRYPTION_PREVIOUS_KEYS
      ? c.SECRET_ENCRYPTION_PREVIOUS_KEYS.split(',').map((s) => s.trim())
      : [],
    masterSeed: c.MASTER_SEED?.trim() || undefined, // empty is unset (docker compose passes ${VAR:-} as "")
    logLevel: c.LOG_LEVEL,
    // Readable lines only where a person reads the sandbox's terminal; JSON otherwise, and always in production.
    logFormat: production ? 'json' : c.LOG_FORMAT,
    shutdownTimeoutMs: c.SHUTDOWN_TIMEOUT_MS,
    rateLimit: { perSecond: c.RATE_LIMIT_PER_SECOND, burst: c.RATE_LIMIT_BURST },
    httpTimeouts: { requestMs: 30_000, headersMs: 10_000, checkEveryMs: 2_000 },
    // The local sandbox (npm start sets loopback) calls receivers on this machine without a restart; everything
    // else calls public ones unless told otherwise.
    webhookReach: webhookReach(c.WEBHOOK_ALLOW_PRIVATE),
    reconcile: { holdPayouts: c.RECONCILE_HOLD_PAYOUTS === 'true', everyMinutes: c.RECONCILE_EVERY_MINUTES, windowDays: c.RECONCILE_WINDOW_DAYS },
    webhookDispatch: {
      concurrency: c.WEBHOOK_CONCURRENCY,
      perEndpoint: c.WEBHOOK_ENDPOINT_CONCURRENCY,
      tickMs: c.WEBHOOK_TICK_MS,
      pollMs: c.WEBHOOK_POLL_MS,
      leaseSeconds: c.WEBHOOK_LEASE_SECONDS,
    },
    scanner: {
      pollMs: c.SCAN_POLL_MS ?? (production ? 1000 : 200),
      batchBlocks: c.SCAN_BATCH_BLOCKS,
      leaseSeconds: c.SCAN_LEASE_SECONDS,
      keepBlocks: 64,
      maxBackoffMs: 30_000,
      startBlocks: startBlocks(env),
    },
    sending: {
      intervalMs: c.SEND_INTERVAL_MS ?? (production ? 2000 : 500),
      replaceAfterMs: (c.TRANSFER_REPLACE_AFTER_SECONDS ?? (production ? 180 : 30)) * 1000,
      rebroadcastAfterMs: production ? 60_000 : 10_000,
      batch: 50,
      // Transfers of a network advanced at once (each holds one of the chain-worker's twenty connections meanwhile).
      concurrency: 4,
      maxBackoffMs: 30_000,
    },
    mail: { smtpUrl: c.SMTP_URL, from: c.MAIL_FROM },
    dashboardUrl: (c.DASHBOARD_URL ?? `http://127.0.0.1:${c.PORT}/dashboard`).replace(/\/+$/, ''),
    authFailureLimits: { ratePerSecond: c.AUTH_FAILURE_RATE_PER_SECOND, burst: c.AUTH_FAILURE_BURST },
    treasuryMinCoolingOffHours: c.TREASURY_MIN_COOLING_OFF_HOURS ?? (production ? 24 : 0),
    trustProxy: trustProxySetting(c.TRUST_PROXY),
    networks: networkSettings(env, production),
  };
}

/** Reads the configuration or stops the process with one line on stderr. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env, opts: ParseOptions = {}): Config {
  try {
    return parseConfig(env, opts);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
