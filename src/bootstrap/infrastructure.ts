// What every process shares: the ORM, pg-boss, the logger, the metrics and a
// tsyringe container with the adapters registered behind the ports.
import { PgMonitoredAddresses } from '../adapters/persistence/monitored-addresses.js';
import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import type PgBoss from 'pg-boss';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { TOKENS } from '../application/tokens.js';
import { ChainAddressCodec } from '../adapters/chains/address-codec.js';
import { ConfiguredNetworkRegistry } from '../adapters/chains/network-settings.js';
import { AesGcmCipher } from '../adapters/crypto/aes-gcm-cipher.js';
import { HmacSigner } from '../adapters/crypto/hmac-signer.js';
import { NodeRandom } from '../adapters/crypto/node-random.js';
import type { Clock } from '../domain/ports.js';
import { ScryptPasswordHasher } from '../adapters/crypto/scrypt-password-hasher.js';
import { TotpAuthenticator } from '../adapters/crypto/totp-authenticator.js';
import { createMailer } from '../adapters/mail/mailer.js';
import { SystemClock } from '../adapters/crypto/system-clock.js';
import { PG_BOSS_SCHEMA, createBoss, enqueueNow } from '../adapters/jobs/pg-boss-jobs.js';
import { createLogger, type Logger } from '../adapters/logging/logger.js';
import { createMetrics, type Metrics } from '../adapters/metrics/metrics.js';
import { AuthFailureThrottle } from '../domain/auth/auth-failure-throttle.js';
import { DnsWebhookUrlGuard } from '../adapters/webhooks/url-guard.js';
import { PgCredentialStore } from '../adapters/persistence/credential-store.js';
import { openOrm, pendingMigrations } from '../adapters/persistence/orm.js';
import { PgRequestAdmission } from '../adapters/persistence/request-admission.js';
import { PgListCounters } from '../adapters/persistence/list-counters.js';
import { PgIdempotencyPurger } from '../adapters/persistence/idempotency-store.js';
import { PgNetworkSwitches } from '../adapters/persistence/network-switches.js';
import { PgLedgerAudit } from '../adapters/persistence/ledger-audit.js';
import { PgReconciliationStore } from '../adapters/persistence/reconciliation-store.js';
import { LocalHdSigner } from '../adapters/signer/hd-signer.js';
import { XpubAddressDeriver } from '../adapters/signer/xpub-address-deriver.js';
import { PgAccountKeyStore } from '../adapters/persistence/account-key-store.js';
import { MikroUnitOfWork } from '../adapters/persistence/unit-of-work.js';
import { PgDeliveryClaims } from '../adapters/persistence/delivery-claims.js';
import { PgWebhookHousekeeping } from '../adapters/persistence/webhook-housekeeping.js';
import { StartupError, reasonOf, type Config } from './config.js';
import { resolveSecrets, type SeedUse } from './secrets.js';

export interface Infrastructure {
  config: Config;
  orm: MikroORM;
  boss: PgBoss;
  logger: Logger;
  metrics: Metrics;
  container: DependencyContainer;
  /** Resolves when the database and the queue answer. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface InfrastructureOptions {
  processName: string;
  /** Workers run pg-boss maintenance and cron; the api only sends. */
  runsWorkers: boolean;
  logger?: Logger;
  /** The service's clock (tests move one by hand); the system clock when absent. */
  clock?: Clock;
  /** Whether the process loads the master seed (ADR 0026); none when absent. */
  seed?: SeedUse;
}

/**
 * Connects to the database and insists it is migrated: the service never
 * creates a database or its schema as a side effect (the migration runner
 * does that), and never serves from a schema older than its code.
 */
async function openDatabase(databaseUrl: string, poolMax: number, preparedStatements: boolean): Promise<MikroORM> {
  let orm: MikroORM | undefined;
  let pending: string[];
  try {
    orm = await openOrm({ databaseUrl, poolMax, preparedStatements });
    pending = await pendingMigrations(orm);
  } catch (err) {
    await orm?.close(true);
    throw new StartupError(`DATABASE_URL: cannot connect to the database (${reasonOf(err)})`);
  }
  if (pending.length > 0) {
    await orm.close(true);
    throw new StartupError(
      `the database is not migrated (${pending.length} of its migrations pending, from ${pending[0]}): run the migration runner first (npm run migrate:prod, or npm run migrate)`,
    );
  }
  return orm;
}

/**
 * The keys (ADR 0026): the signer and the xpub export only where the seed is
 * loaded; everywhere the public derivation from the recorded account xpubs,
 * which asks the chain-worker for a refill when one is missing.
 */
function registerKeys(container: DependencyContainer, orm: MikroORM, boss: PgBoss, logger: Logger, seed: string | undefined): void {
  const signer = seed === undefined ? undefined : new LocalHdSigner(seed);
  if (signer) {
    container.register(TOKENS.Signer, { useValue: signer });
    container.register(TOKENS.AccountKeyExporter, { useValue: signer });
  }
  const store = new PgAccountKeyStore(orm);
  container.register(TOKENS.AccountKeyStore, { useValue: store });
  container.register(TOKENS.AddressDeriver, {
    useValue: new XpubAddressDeriver(store, {
      signer,
      exporter: signer,
      requestRefill: () => enqueueNow(boss, 'custody.refill-xpubs', { reason: 'missing' }),
      onRefillError: (err) => logger.error({ err }, 'could not ask the chain-worker for account keys'),
    }),
  });
}

export async function openInfrastructure(config: Config, opts: InfrastructureOptions): Promise<Infrastructure> {
  if (!config.databaseUrl) {
    throw new StartupError('DATABASE_URL: required to run a process on its own (npm start sets it for the processes it runs)');
  }
  const logger = opts.logger ?? createLogger({ level: config.logLevel, name: opts.processName });
  const secrets = resolveSecrets(config, opts.seed ?? 'none');
  // The chain-worker's sender loops advance several transfers of each network at once, each on a connection.
  const orm = await openDatabase(config.databaseUrl, opts.processName === 'chain-worker' ? 20 : 10, config.preparedStatements);
  const boss = createBoss(config.databaseUrl, { supervise: opts.runsWorkers, schedule: opts.runsWorkers });
  boss.on('error', (err) => logger.error({ err }, 'job queue error'));
  await boss.start();
  const metrics = createMetrics(opts.processName);

  const container = rootContainer.createChildContainer();
  const clock = opts.clock ?? new SystemClock();
  const random = new NodeRandom();
  container.register(TOKENS.Clock, { useValue: clock });
  container.register(TOKENS.RandomSource, { useValue: random });
  container.register(TOKENS.RequestSigner, { useValue: new HmacSigner() });
  container.register(TOKENS.SecretCipher, {
    useValue: new AesGcmCipher(secrets.encryptionKey, secrets.previousEncryptionKeys),
  });
  container.register(TOKENS.UnitOfWork, { useValue: new MikroUnitOfWork(orm, boss, clock, random) });
  container.register(TOKENS.CredentialStore, { useValue: new PgCredentialStore(orm) });
  container.register(TOKENS.RequestAdmission, { useValue: new PgRequestAdmission(orm, config.rateLimit) });
  container.register(TOKENS.IdempotencyPurger, { useValue: new PgIdempotencyPurger(orm) });
  const switches = new PgNetworkSwitches(orm);
  container.register(TOKENS.NetworkSwitches, { useValue: switches });
  container.register(TOKENS.NetworkRegistry, {
    useValue: new ConfiguredNetworkRegistry(config.networks, !config.production, switches),
  });
  registerKeys(container, orm, boss, logger, secrets.masterSeed);
  container.register(TOKENS.AddressCodec, { useValue: new ChainAddressCodec() });
  container.register(TOKENS.LedgerAudit, { useValue: new PgLedgerAudit(orm) });
  container.register(TOKENS.ReconciliationStore, { useValue: new PgReconciliationStore(orm) });
  container.register(TOKENS.ReconcileOptions, { useValue: { holdPayouts: config.reconcile.holdPayouts, windowDays: config.reconcile.windowDays } });
  container.register(TOKENS.Logger, { useValue: logger });
  container.register(TOKENS.WebhookUrlGuard, { useValue: new DnsWebhookUrlGuard(config.webhookReach) });
  container.register(TOKENS.DeliveryClaims, { useValue: new PgDeliveryClaims(orm, config.webhookDispatch.leaseSeconds) });
  container.register(TOKENS.WebhookHousekeeping, { useValue: new PgWebhookHousekeeping(orm) });
  container.register(TOKENS.ListCounters, { useValue: new PgListCounters(orm) });
  container.register(TOKENS.MonitoredAddresses, { useValue: new PgMonitoredAddresses(orm) });
  container.register(TOKENS.AuthFailureThrottle, { useValue: new AuthFailureThrottle(config.authFailureLimits) });
  container.register(TOKENS.MinColdCoolingOffHours, { useValue: config.treasuryMinCoolingOffHours });
  container.register(TOKENS.DashboardUrl, { useValue: config.dashboardUrl });
  container.register(TOKENS.PasswordHasher, { useValue: new ScryptPasswordHasher() });
  container.register(TOKENS.Authenticator, { useValue: new TotpAuthenticator() });
  // Operator notices (the dispatcher) and invitations (ops, the dashboard in the api).
  container.register(TOKENS.Mailer, { useValue: createMailer({ ...config.mail, dataDir: config.dataDir, production: config.production }, logger) });

  const connection = orm.em.getConnection();
  return {
    config,
    orm,
    boss,
    logger,
    metrics,
    container,
    async ready() {
      await connection.execute('select 1');
      await connection.execute(`select version from ${PG_BOSS_SCHEMA}.version`);
    },
    async close() {
      await boss.stop({ graceful: true, wait: true, timeout: Math.max(1000, config.shutdownTimeoutMs - 2000) });
      await orm.close(true);
    },
  };
}
