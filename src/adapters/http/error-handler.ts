// Every error leaves as the body of docs/api.md#errors: { error, code } and, for
// validation failures, details. Unexpected failures are logged with the request
// id and answered 500 INTERNAL_ERROR with nothing internal in the body.
import type { ErrorRequestHandler, Response } from 'express';
import { ZodError } from 'zod';
import { DomainError, type ErrorCode } from '../../domain/errors.js';
import type { Logger } from '../logging/logger.js';
import { ERROR_STATUS } from './error-status.js';

export function sendError(res: Response, code: ErrorCode, message: string, details?: unknown): void {
  const body: Record<string, unknown> = { error: message, code };
  if (details !== undefined) body.details = details;
  res.status(ERROR_STATUS[code]).json(body);
}

export function zodDetails(err: ZodError): { path: string; message: string }[] {
  return err.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

const isConnectionFailure = (err: unknown): boolean => {
  if ((err as { name?: unknown })?.name === 'KnexTimeoutError') return true;
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', '57P01', '57P03', '53300'].includes(code);
};

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof DomainError) {
      const retryAfter = (err.details as { retry_after_seconds?: unknown } | undefined)?.retry_after_seconds;
      if ((err.code === 'RATE_LIMITED' || err.code === 'SERVICE_UNAVAILABLE') && typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
      sendError(res, err.code, err.message, err.details);
      return;
    }
    if (err instanceof URIError) {
      // express could not percent-decode a path parameter (`/v2/wallets/%ZZ`):
      // such an id names nothing, like any other id that is not a UUID.
      sendError(res, 'NOT_FOUND', 'No such resource');
      return;
    }
    if (err instanceof ZodError) {
      sendError(res, 'VALIDATION_ERROR', 'Request validation failed', zodDetails(err));
      return;
    }
    const requestId = res.getHeader('X-Request-Id');
    logger.error({ err, requestId, method: req.method, path: req.path }, 'request failed');
    if (isConnectionFailure(err)) {
      sendError(res, 'DATABASE_ERROR', 'The database is unavailable; retry later');
      return;
    }
    sendError(res, 'INTERNAL_ERROR', `Internal error (request ${String(requestId)})`);
  };
}
