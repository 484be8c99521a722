// Express side of request authentication: gathers the headers, the exact
// request target, the body hash and the source address for the use case.
import type { RequestHandler, Response } from 'express';
import type { AuthenticateRequest } from '../../application/auth/authenticate-request.js';
import type { Principal } from '../../domain/auth/principal.js';

export function authenticate(auth: AuthenticateRequest): RequestHandler {
  return async (req, res, next) => {
    res.locals.principal = await auth.execute({
      keyId: req.get('X-Service-Key'),
      timestamp: req.get('X-Service-Timestamp'),
      signature: req.get('X-Service-Signature'),
      method: req.method,
      path: req.originalUrl,
      bodySha256Hex: res.locals.bodySha256 as string,
      sourceIp: req.ip ?? req.socket.remoteAddress ?? '',
    });
    next();
  };
}

export function principalOf(res: Response): Principal {
  const p = res.locals.principal as Principal | undefined;
  if (!p) throw new Error('route reached without authentication');
  return p;
}
