// Entrypoint and composition root of the api process.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import { buildApiApp, declaredRoutes } from '../adapters/http/api-app.js';
import { ALL_PROBES, buildProbeApp } from '../adapters/http/probes.js';
import type { DeclaredRoute } from '../adapters/http/route.js';
import { answerClientErrors } from '../adapters/http/client-error.js';
import { closeServer, httpGraceMs } from '../adapters/http/close-server.js';
import { TOKENS } from '../application/tokens.js';
import { balanceReaders } from './chain-ports.js';
import type { Config } from './config.js';
import { openInfrastructure, type Infrastructure } from './infrastructure.js';
import { isEntrypoint, listening, runProcess, type Running } from './lifecycle.js';

export interface RunningApi extends Running {
  port: number;
  infra: Infrastructure;
  /** Port of /readyz and /metrics when they are off the public port (production, or ADMIN_PORT); else null. */
  adminPort: number | null;
  /** The express application (tests walk its mounted routes). */
  app: Express;
  /** The /v2 routes it serves, each with the access it declares. */
  routes: readonly DeclaredRoute[];
}

export async function startApi(config: Config): Promise<RunningApi> {
  // No seed: deposit addresses come from the account xpubs the chain-worker records (ADR 0026).
  const infra = await openInfrastructure(config, { processName: 'api', runsWorkers: false, seed: 'if-configured' });
  // The faucet (local sandbox only) reads its dispenser's native funds from the node before it queues a native drip.
  infra.container.register(TOKENS.FaucetAvailable, { useValue: !config.production });
  infra.container.register(TOKENS.BalanceReaders, { useValue: config.production ? [] : await balanceReaders(config) });
  const app = buildApiApp({
    resolve: (token) => infra.container.resolve(token),
    logger: infra.logger,
    metrics: infra.metrics,
    ready: () => infra.ready(),
    trustProxy: config.trustProxy,
    // With an admin port, the public port answers /v2 and /healthz only.
    probes: config.adminPort === null ? ALL_PROBES : ['healthz'],
    dashboard: {
      dashboardUrl: config.dashboardUrl,
      secureCookies: config.production || config.dashboardUrl.startsWith('https:'),
      defaultSide: config.production ? 'live' : 'test',
    },
  });
  const serve = async (handler: Express, port: number, variable: string): Promise<Server> => {
    const { requestMs, headersMs, checkEveryMs } = config.httpTimeouts;
    const s = createServer({ requestTimeout: requestMs, headersTimeout: headersMs, connectionsCheckingInterval: checkEveryMs }, handler);
    s.listen(port, config.host);
    answerClientErrors(s);
    await listening(s, variable, port, config.host);
    return s;
  };
  let admin: Server | null = null;
  let server: Server;
  try {
    if (config.adminPort !== null) {
      admin = await serve(buildProbeApp({ registry: infra.metrics.registry, ready: () => infra.ready() }), config.adminPort, 'ADMIN_PORT');
    }
    server = await serve(app, config.ports.api, 'PORT');
  } catch (err) {
    admin?.close();
    await infra.close();
    throw err;
  }
  server.keepAliveTimeout = 5000;
  const port = (server.address() as AddressInfo).port;
  const adminPort = admin ? (admin.address() as AddressInfo).port : null;
  infra.logger.info({ url: `http://${config.host}:${port}`, adminPort }, 'api listening');
  const publicServer = server;
  const adminServer = admin;
  return {
    port,
    adminPort,
    infra,
    app,
    routes: declaredRoutes(app),
    async close() {
      const grace = httpGraceMs(config.shutdownTimeoutMs);
      const [{ cut }] = await Promise.all([closeServer(publicServer, grace), adminServer ? closeServer(adminServer, grace) : null]);
      if (cut) infra.logger.warn('cut connections that had not finished a request in time');
      await infra.close();
    },
  };
}

if (isEntrypoint(import.meta.url)) runProcess('api', startApi);
