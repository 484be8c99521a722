// The api process's express application: probes, then /v2 with body checks,
// authentication and the routers; one JSON error body for everything else.
import express, { type Express } from 'express';
import type { InjectionToken } from 'tsyringe';
import { AuthenticateRequest } from '../../application/auth/authenticate-request.js';
import type { Logger } from '../logging/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { authenticate } from './authenticate.js';
import { dashboardRouter } from './dashboard/router.js';
import { docsRouter } from './docs-site/router.js';
import { requireHost } from './client-error.js';
import { errorHandler, sendError } from './error-handler.js';
import { probeRouter, type Probe } from './probes.js';
import { recordMount, requestContext } from './request-context.js';
import { openApiJson } from './openapi.js';
import { RESOURCES } from './resources.js';
import { fullPath, routerOf, type DeclaredRoute } from './route.js';
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
  /** The dashboard's address (DASHBOARD_URL) and whether its cookies are Secure (outside the sandbox). */
  dashboard: { dashboardUrl: string; secureCookies: boolean; defaultSide: 'live' | 'test' };
}

/** The routes an app built by buildApiApp serves under /v2, with the access each declares. */
export const declaredRoutes = (app: Express): readonly DeclaredRoute[] => app.locals.declaredRoutes as DeclaredRoute[];

export function buildApiApp(deps: ApiAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', true);
  app.set('trust proxy', deps.trustProxy);
  // Routes are declared below; a request refused before routing (authentication) is named by its declaration.
  app.use(requestContext(deps.logger, deps.metrics, () => (app.locals.declaredRoutes as DeclaredRoute[] | undefined) ?? []));
  // Probes first: a load balancer's health check may be HTTP/1.0 without Host (HAProxy's default).
  app.use(probeRouter({ registry: deps.metrics.registry, ready: deps.ready }, deps.probes));
  app.use(requireHost);

  // The API's description, outside the signed surface: what a client reads before it has a key.
  const document = openApiJson();
  app.get('/v2/openapi.json', (_req, res) => {
    res.type('application/json').send(document);
  });

  const v2 = apiRouter();
  v2.use(readRawBody);
  v2.use(authenticate(deps.resolve(AuthenticateRequest)));
  // A server-to-server API: no CORS preflight. express would answer OPTIONS itself.
  v2.use((req, res, next) => (req.method === 'OPTIONS' ? sendError(res, 'NOT_FOUND', 'No such route') : next()));
  // Each resource's router, built from its declarations (access check, then
  // the body, then the handler), with its full route recorded for metrics and logs.
  const declared: DeclaredRoute[] = [];
  for (const resource of RESOURCES) {
    v2.use(resource.mount, recordMount(`/v2${resource.mount}`), routerOf(resource.routes, resource.deps(deps.resolve)));
    for (const r of resource.routes) {
      declared.push({ method: r.method, path: fullPath(`/v2${resource.mount}`, r.path), access: r.access, operationId: r.operationId });
    }
  }
  app.locals.declaredRoutes = declared;
  app.use('/v2', v2);

  // The owners' dashboard: its own router and session sign-in, never on the signed /v2 surface.
  app.use('/dashboard', recordMount('/dashboard'), dashboardRouter({ resolve: deps.resolve, logger: deps.logger, ...deps.dashboard }));
  // The docs site: guides from docs/*.md and the API reference from the document above, unsigned and read-only.
  app.use('/docs', recordMount('/docs'), docsRouter({ logger: deps.logger }));

  app.use((_req, res) => sendError(res, 'NOT_FOUND', 'No such route'));
  app.use(errorHandler(deps.logger));
  return app;
}
