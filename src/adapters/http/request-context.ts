// Per-request context: a request id (echoed in X-Request-Id and written to
// every log line about the request), the duration histogram, an access log,
// and the request's scope for what its admission read once (request-snapshot.ts).
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Logger } from '../logging/logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { inRequestScope } from '../persistence/request-snapshot.js';

const INCOMING_ID = /^[A-Za-z0-9_.:-]{8,128}$/;
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Names the mount point of the router that serves the request, for the route
 * label: a constant, never the path as sent, and kept when an error leaves the
 * router (express puts req.baseUrl back then).
 */
export const recordMount =
  (mountPath: string): RequestHandler =>
  (_req, res, next) => {
    res.locals.mountPath = mountPath;
    next();
  };

export function routeLabel(req: Request, mountPath?: unknown): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (typeof route?.path !== 'string') return 'unmatched';
  const full = `${typeof mountPath === 'string' ? mountPath : req.baseUrl}${route.path}`;
  return full.length > 1 && full.endsWith('/') ? full.slice(0, -1) : full;
}

/** A declared route's method and template (`/v2/withdrawals/:id`). */
export interface RouteTemplate {
  method: string;
  path: string;
}

const compiled = new Map<string, RegExp>();
const templateRegex = (path: string): RegExp => {
  let re = compiled.get(path);
  if (!re) compiled.set(path, (re = compileTemplate(path)));
  return re;
};
const compileTemplate = (path: string): RegExp =>
  new RegExp(`^${path.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`);

/**
 * The declared route a request was for when it was refused before any router
 * matched it (authentication runs first): failed sign-ins and refused keys are
 * then logged and counted under the route they tried, never under a path as
 * sent (which would let a client mint labels, and may carry a token).
 */
export function declaredRouteOf(req: Request, routes: readonly RouteTemplate[]): string | null {
  const path = req.originalUrl.split('?')[0]!;
  const hit = routes.find((r) => r.method.toUpperCase() === req.method && templateRegex(r.path).test(path));
  return hit ? hit.path : null;
}

export function requestContext(logger: Logger, metrics: Metrics, routes: () => readonly RouteTemplate[] = () => []): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('X-Request-Id');
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    res.locals.requestId = requestId;
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const matched = routeLabel(req, res.locals.mountPath);
      const route = matched === 'unmatched' ? (declaredRouteOf(req, routes()) ?? matched) : matched;
      metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      if (!PROBES.has(req.path)) {
        logger.info(
          { requestId, method: req.method, route, status: res.statusCode, ms: Math.round(seconds * 1000) },
          'request',
        );
      }
    });
    inRequestScope(next);
  };
}
