// The api process's express application: probes, then /v2 with body checks,
// authentication and the routers; one JSON error body for everything else.
import express, { type Express } from 'express';
import type { InjectionToken } from 'tsyringe';
import { AuthenticateRequest } from '../../application/auth/authenticate-request.js';
import { CreateApiKey } from '../../application/api-keys/create-api-key.js';
import { ListApiKeys } from '../../application/api-keys/list-api-keys.js';
import { RevokeApiKey } from '../../application/api-keys/revoke-api-key.js';
import { GetBalances } from '../../application/balances/get-balances.js';
import { ListChains } from '../../application/chains/list-chains.js';
import { QuoteFee } from '../../application/fees/quote-fee.js';
import { CreateCustomer } from '../../application/customers/create-customer.js';
import { ReadCustomers } from '../../application/customers/read-customers.js';
import { UpdateCustomer } from '../../application/customers/update-customer.js';
import { ArchiveWallet } from '../../application/wallets/archive-wallet.js';
import { CreateWallet } from '../../application/wallets/create-wallet.js';
import { ReadWallets } from '../../application/wallets/read-wallets.js';
import { RunIdempotently } from '../../application/idempotency/run-idempotently.js';
import type { Logger } from '../logging/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { apiKeyRoutes } from './api-keys.js';
import { authenticate } from './authenticate.js';
import { balanceRoutes } from './balances.js';
import { chainRoutes } from './chains.js';
import { feeRoutes } from './fees.js';
import { customerRoutes } from './customers.js';
import { walletRoutes } from './wallets.js';
import { requireHost } from './client-error.js';
import { errorHandler, sendError } from './error-handler.js';
import { probeRouter, type Probe } from './probes.js';
import { recordMount, requestContext } from './request-context.js';
import { fullPath, routerOf, type DeclaredRoute, type RouteSpec } from './route.js';
import { apiRouter } from './router.js';
import { readRawBody } from './signed-body.js';

export interface ApiAppDeps {
  resolve: <T>(token: InjectionToken<T>) => T;
  logger: Logger;
  metrics: Metrics;
  ready: () => Promise<void>;
  /** express's trust-proxy setting (TRUST_PROXY): decides req.ip, used by IP allowlists. */
  trustProxy: boolean | number | string;
  /** The probes served on the public port: all of them in the sandbox, /healthz only when an admin port serves the rest. */
  probes: readonly Probe[];
}

/** Every resource of /v2 with its route declarations, by mount point. */
function resources(resolve: ApiAppDeps['resolve']): [string, RouteSpec[]][] {
  const idempotency = resolve(RunIdempotently);
  return [
    ['/chains', chainRoutes(resolve(ListChains))],
    ['/api-keys', apiKeyRoutes({ create: resolve(CreateApiKey), list: resolve(ListApiKeys), revoke: resolve(RevokeApiKey) })],
    [
      '/customers',
      customerRoutes({ create: resolve(CreateCustomer), read: resolve(ReadCustomers), update: resolve(UpdateCustomer), idempotency }),
    ],
    ['/wallets', walletRoutes({ create: resolve(CreateWallet), read: resolve(ReadWallets), archive: resolve(ArchiveWallet), idempotency })],
    ['/balances', balanceRoutes(resolve(GetBalances))],
    ['/fees', feeRoutes(resolve(QuoteFee))],
  ];
}

/** The routes an app built by buildApiApp serves under /v2, with the access each declares. */
export const declaredRoutes = (app: Express): readonly DeclaredRoute[] => app.locals.declaredRoutes as DeclaredRoute[];

export function buildApiApp(deps: ApiAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('trust proxy', deps.trustProxy);
  app.use(requestContext(deps.logger, deps.metrics));
  app.use(requireHost);
  app.use(probeRouter({ registry: deps.metrics.registry, ready: deps.ready }, deps.probes));

  const v2 = apiRouter();
  v2.use(readRawBody);
  v2.use(authenticate(deps.resolve(AuthenticateRequest)));
  // A server-to-server API: no CORS preflight. express would answer OPTIONS itself.
  v2.use((req, res, next) => (req.method === 'OPTIONS' ? sendError(res, 'NOT_FOUND', 'No such route') : next()));
  // Each resource's router, built from its declarations (access check, then
  // the body, then the handler), with its full route recorded for metrics and logs.
  const declared: DeclaredRoute[] = [];
  for (const [mount, specs] of resources(deps.resolve)) {
    v2.use(mount, recordMount(`/v2${mount}`), routerOf(specs));
    declared.push(...specs.map((r) => ({ method: r.method, path: fullPath(`/v2${mount}`, r.path), access: r.access })));
  }
  app.locals.declaredRoutes = declared;
  app.use('/v2', v2);

  app.use((_req, res) => sendError(res, 'NOT_FOUND', 'No such route'));
  app.use(errorHandler(deps.logger));
  return app;
}
