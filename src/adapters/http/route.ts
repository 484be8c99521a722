// Each route is declared once: method, path, the access it asks of the key,
// and the handler. Mounting a declaration puts the access check first, then
// the body's JSON parsing and the storable-input check, then the handler: a
// key without the endpoint's scope learns nothing about its body or query
// (403 before any 400), and no route can be mounted unguarded.
import type { Request, RequestHandler, Response, Router } from 'express';
import { requireAccess, type Access } from '../../domain/auth/principal.js';
import type { Scope } from '../../domain/auth/scopes.js';
import { principalOf } from './authenticate.js';
import { apiRouter } from './router.js';
import { parseJsonBody } from './signed-body.js';
import { refuseUnstorableInput } from './storable-input.js';

export type Method = 'get' | 'post' | 'patch' | 'delete';

export interface RouteSpec {
  method: Method;
  /** Relative to the resource's mount point, e.g. '/:id/archive'. */
  path: string;
  access: Access;
  handler: (req: Request, res: Response) => Promise<void>;
}

/** A declared route with its full path, as listed by the api (tests, documentation). */
export interface DeclaredRoute {
  method: Method;
  path: string;
  access: Access;
}

const guard =
  (access: Access): RequestHandler =>
  (_req, res, next) => {
    requireAccess(principalOf(res), access);
    if (access.kind === 'scope') res.locals.requiredScope = access.scope;
    next();
  };

/** The scope the route's declaration asked for (idempotent creates check it again before a replay). */
export function requiredScopeOf(res: Response): Scope {
  const s = res.locals.requiredScope as Scope | undefined;
  if (!s) throw new Error('an idempotent route must declare a scope');
  return s;
}

/** Builds the router of one resource from its declarations. */
export function routerOf(specs: readonly RouteSpec[]): Router {
  const r = apiRouter();
  for (const spec of specs) {
    r[spec.method](spec.path, guard(spec.access), parseJsonBody, refuseUnstorableInput, (req, res, next) => {
      spec.handler(req, res).catch(next);
    });
  }
  return r;
}

export const fullPath = (mount: string, path: string): string => (path === '/' ? mount : `${mount}${path}`);
