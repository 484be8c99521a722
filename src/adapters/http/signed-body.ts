// Body handling for every request under /v2. The raw bytes are read once (at
// most 64 KiB: anything larger is refused with 413 before it is read), hashed
// for the signature, and after authentication checked as JSON: a body that is
// not application/json is 415, malformed JSON is 400 INVALID_JSON. All before routing.
import { createHash } from 'node:crypto';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { sendError } from './error-handler.js';

export const MAX_BODY_BYTES = 64 * 1024;
const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

export function readRawBody(): RequestHandler[] {
  const raw = express.raw({ type: () => true, limit: MAX_BODY_BYTES, inflate: false });
  const hash: RequestHandler = (req, res, next) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.locals.rawBody = body;
    res.locals.bodySha256 = body.length === 0 ? EMPTY_SHA256 : createHash('sha256').update(body).digest('hex');
    req.body = undefined;
    next();
  };
  return [raw, hash];
}

/** Translates body-parser's failures into the contract's codes. */
export const rawBodyErrors: ErrorRequestHandler = (err, _req, res, next) => {
  const type = (err as { type?: string }).type;
  if (type === 'entity.too.large') return sendError(res, 'PAYLOAD_TOO_LARGE', 'Request body exceeds 64 KiB');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'Request body must be uncompressed application/json');
  }
  if (type === 'request.aborted' || type === 'request.size.invalid' || type === 'stream.encoding.set') {
    return sendError(res, 'INVALID_JSON', 'Request body could not be read');
  }
  next(err);
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
