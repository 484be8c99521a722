// Each route is declared once: method, path, the access it asks of the key,
// its request and response schemas, the error codes it may answer, and the
// handler. From the declaration come the express route (the access check
// first, then the body's JSON parsing and the storable-input check, then the
// handler), and the OpenAPI operation (openapi.ts). A key without the
// endpoint's scope learns nothing about its body or query (403 before any
// 400), and no route can be mounted unguarded or undocumented.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { InjectionToken } from 'tsyringe';
import type { z } from 'zod';
import { requireAccess, type Access } from '../../domain/auth/principal.js';
import type { Scope } from '../../domain/auth/scopes.js';
import type { ErrorCode } from '../../domain/error-catalogue.js';
import { principalOf } from './authenticate.js';
import { apiRouter } from './router.js';
import { parseJsonBody } from './signed-body.js';
import { sendError } from './error-handler.js';
import { refuseUnstorableInput } from './storable-input.js';

export type Method = 'get' | 'post' | 'patch' | 'delete';
export type Handler = (req: Request, res: Response) => Promise<void>;

export interface ResponseSpec {
  description: string;
  schema: z.ZodType;
}

export interface RouteDef<D> {
  /** Unique, stable: the OpenAPI operationId and the SDK's method name. */
  operationId: string;
  summary: string;
  method: Method;
  /** Relative to the resource's mount point, in express syntax: '/:id/archive'. */
  path: string;
  access: Access;
  /** The schemas the handler validates its input with, for the document. */
  request?: { params?: z.ZodObject; query?: z.ZodObject; body?: z.ZodType };
  /** Idempotent create: documents the Idempotency-Key and Idempotent-Replay headers. */
  idempotent?: boolean;
  /** Success responses by status. */
  responses: Partial<Record<200 | 201, ResponseSpec>>;
  /** The error codes this route answers beyond those every signed route may (authentication, limits, failures). */
  errors: ErrorCode[];
  handle: (deps: D) => Handler;
}

/** A resource: its mount point, its routes and how to get what their handlers need. */
export interface Resource<D> {
  mount: string;
  tag: string;
  routes: RouteDef<D>[];
  deps: (resolve: <T>(token: InjectionToken<T>) => T) => D;
}

/** A declared route with its full path, as the api lists it (tests, documentation). */
export interface DeclaredRoute {
  method: Method;
  path: string;
  access: Access;
  operationId: string;
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

/**
 * A route that declares no body takes none: an empty object is tolerated (it
 * names nothing), anything else is refused like an unknown field, so a
 * caller never believes a field it sent was used.
 */
const refuseBody: RequestHandler = (req, res, next) => {
  const body: unknown = req.body;
  const empty = body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
  if (empty) return next();
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.keys(body) : [];
  const message = 'This endpoint takes no request body';
  return sendError(res, 'VALIDATION_ERROR', message, fields.length ? fields.map((path) => ({ path, message: 'Unrecognized key' })) : [{ path: '', message }]);
};

/** Builds the router of one resource from its declarations, with their handlers bound to `deps`. */
export function routerOf<D>(routes: readonly RouteDef<D>[], deps: D): Router {
  const r = apiRouter();
  for (const route of routes) {
    const handler = route.handle(deps);
    const steps: RequestHandler[] = [guard(route.access), parseJsonBody];
    if (!route.request?.body) steps.push(refuseBody);
    r[route.method](route.path, ...steps, refuseUnstorableInput, (req, res, next) => {
      handler(req, res).catch(next);
    });
  }
  return r;
}

export const fullPath = (mount: string, path: string): string => (path === '/' ? mount : `${mount}${path}`);
