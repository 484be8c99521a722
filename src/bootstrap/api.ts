// Entrypoint and composition root of the api process.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { buildApiApp, declaredRoutes } from '../adapters/http/api-app.js';
import type { DeclaredRoute } from '../adapters/http/route.js';
import { answerClientErrors } from '../adapters/http/client-error.js';
import { closeServer, httpGraceMs } from '../adapters/http/close-server.js';
import type { Config } from './config.js';
import { openInfrastructure, type Infrastructure } from './infrastructure.js';
import { isEntrypoint, listening, runProcess, type Running } from './lifecycle.js';

export interface RunningApi extends Running {
  port: number;
  infra: Infrastructure;
  /** The /v2 routes it serves, each with the access it declares. */
  routes: readonly DeclaredRoute[];
}

export async function startApi(config: Config): Promise<RunningApi> {
  const infra = await openInfrastructure(config, { processName: 'api', runsWorkers: false });
  const app = buildApiApp({
    resolve: (token) => infra.container.resolve(token),
    logger: infra.logger,
    metrics: infra.metrics,
    ready: () => infra.ready(),
    trustProxy: config.trustProxy,
  });
  const server = app.listen(config.ports.api, config.host);
  answerClientErrors(server);
  await listening(server, 'PORT', config.ports.api, config.host);
  server.keepAliveTimeout = 5000;
  const port = (server.address() as AddressInfo).port;
  infra.logger.info({ url: `http://${config.host}:${port}` }, 'api listening');
  return {
    port,
    infra,
    routes: declaredRoutes(app),
    async close() {
      const { cut } = await closeServer(server, httpGraceMs(config.shutdownTimeoutMs));
      if (cut) infra.logger.warn('cut connections that had not finished a request in time');
      await infra.close();
    },
  };
}

if (isEntrypoint(import.meta.url)) runProcess('api', startApi);
