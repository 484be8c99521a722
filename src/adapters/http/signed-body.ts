// Body handling for every request under /v2. The raw bytes are read once, at
// most 64 KiB: a larger body is refused with 413 as soon as its declared length
// or the bytes received pass the limit, and the connection is closed instead of
// reading the rest. The bytes are hashed for the signature. Once a route has
// matched and its access check passed (route.ts), a body that is not
// application/json is 415 and malformed JSON is 400 INVALID_JSON.
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import getRawBody from 'raw-body';
import { sendError } from './error-handler.js';

export const MAX_BODY_BYTES = 64 * 1024;
const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

const hasBody = (req: Parameters<RequestHandler>[0]): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

export const readRawBody: RequestHandler = async (req, res, next) => {
  let body: Buffer = Buffer.alloc(0);
  if (hasBody(req)) {
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding !== 'identity') {
      res.setHeader('Connection', 'close');
      return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'Request body must be uncompressed application/json');
    }
    try {
      body = await getRawBody(req, { limit: MAX_BODY_BYTES, length: req.headers['content-length'] });
    } catch (err) {
      res.setHeader('Connection', 'close');
      if ((err as { type?: string }).type === 'entity.too.large') {
        return sendError(res, 'PAYLOAD_TOO_LARGE', 'Request body exceeds 64 KiB');
      }
      return sendError(res, 'INVALID_JSON', 'Request body could not be read');
    }
  }
  res.locals.rawBody = body;
  res.locals.bodySha256 = body.length === 0 ? EMPTY_SHA256 : createHash('sha256').update(body).digest('hex');
  next();
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

export const parseJsonBody: RequestHandler = (req, res, next) => {
  const body = res.locals.rawBody as Buffer;
  if (body.length === 0) {
    req.body = undefined;
    return next();
  }
  if (!req.is('application/json')) {
    return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json');
  }
  try {
    req.body = JSON.parse(utf8.decode(body)) as unknown;
  } catch {
    return sendError(res, 'INVALID_JSON', 'Request body is not valid JSON');
  }
  next();
};
