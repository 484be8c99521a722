// Per-request context: a request id (echoed in X-Request-Id and written to
// every log line about the request), the duration histogram and an access log.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Logger } from '../logging/logger.js';
import type { Metrics } from '../metrics/metrics.js';

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

export function requestContext(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('X-Request-Id');
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    res.locals.requestId = requestId;
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeLabel(req, res.locals.mountPath);
      metrics.httpDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      if (!PROBES.has(req.path)) {
        logger.info(
          { requestId, method: req.method, route, status: res.statusCode, ms: Math.round(seconds * 1000) },
          'request',
        );
      }
    });
    next();
  };
}
