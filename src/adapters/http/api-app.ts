// The api process's express application: probes, then /v2 with body checks,
// authentication and the routers; one JSON error body for everything else.
import express, { type Express, type Router } from 'express';
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
import { apiKeysRouter } from './api-keys.js';
import { authenticate } from './authenticate.js';
import { balancesRouter } from './balances.js';
import { chainsRouter } from './chains.js';
import { feesRouter } from './fees.js';
import { customersRouter } from './customers.js';
import { walletsRouter } from './wallets.js';
import { requireHost } from './client-error.js';
import { errorHandler, sendError } from './error-handler.js';
import { probeRouter } from './probes.js';
import { recordMount, requestContext } from './request-context.js';
import { apiRouter } from './router.js';
import { parseJsonBody, readRawBody } from './signed-body.js';
import { refuseUnstorableInput } from './storable-input.js';

export interface ApiAppDeps {
  resolve: <T>(token: InjectionToken<T>) => T;
  logger: Logger;
  metrics: Metrics;
  ready: () => Promise<void>;
  /** express's trust-proxy setting (TRUST_PROXY): decides req.ip, used by IP allowlists. */
  trustProxy: boolean | number | string;
}

export function buildApiApp(deps: ApiAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('trust proxy', deps.trustProxy);
  app.use(requestContext(deps.logger, deps.metrics));
  app.use(requireHost);
  app.use(probeRouter({ registry: deps.metrics.registry, ready: deps.ready }));

  const v2 = apiRouter();
  v2.use(readRawBody);
  v2.use(authenticate(deps.resolve(AuthenticateRequest)));
  v2.use(parseJsonBody);
  v2.use(refuseUnstorableInput);
  // A server-to-server API: no CORS preflight. express would answer OPTIONS itself.
  v2.use((req, res, next) => (req.method === 'OPTIONS' ? sendError(res, 'NOT_FOUND', 'No such route') : next()));
  // Each resource router, with its full route recorded for metrics and logs.
  const mount = (path: string, router: Router) => v2.use(path, recordMount(`/v2${path}`), router);
  mount('/chains', chainsRouter(deps.resolve(ListChains)));
  mount(
    '/api-keys',
    apiKeysRouter({
      create: deps.resolve(CreateApiKey),
      list: deps.resolve(ListApiKeys),
      revoke: deps.resolve(RevokeApiKey),
    }),
  );
  mount(
    '/customers',
    customersRouter({
      create: deps.resolve(CreateCustomer),
      read: deps.resolve(ReadCustomers),
      update: deps.resolve(UpdateCustomer),
      idempotency: deps.resolve(RunIdempotently),
    }),
  );
  mount(
    '/wallets',
    walletsRouter({
      create: deps.resolve(CreateWallet),
      read: deps.resolve(ReadWallets),
      archive: deps.resolve(ArchiveWallet),
      idempotency: deps.resolve(RunIdempotently),
    }),
  );
  mount('/balances', balancesRouter(deps.resolve(GetBalances)));
  mount('/fees', feesRouter(deps.resolve(QuoteFee)));
  app.use('/v2', v2);

  app.use((_req, res) => sendError(res, 'NOT_FOUND', 'No such route'));
  app.use(errorHandler(deps.logger));
  return app;
}
