// The probes every process serves: /healthz (alive), /readyz (database and
// queue reachable) and /metrics (Prometheus text format). In production the
// api keeps /readyz and /metrics off its public port, on an admin port.
import express, { Router, type Express } from 'express';
import type { Registry } from 'prom-client';
import { requireHost } from './client-error.js';

export type Probe = 'healthz' | 'readyz' | 'metrics';
export const ALL_PROBES: readonly Probe[] = ['healthz', 'readyz', 'metrics'];

export interface ProbeDeps {
  registry: Registry;
  /** Resolves when every dependency is reachable; rejects with the reason otherwise. */
  ready: () => Promise<void>;
}

export function probeRouter(deps: ProbeDeps, probes: readonly Probe[] = ALL_PROBES): Router {
  const r = Router();
  if (probes.includes('healthz')) {
    r.get('/healthz', (_req, res) => {
      res.json({ status: 'ok', pid: process.pid });
    });
  }
  if (probes.includes('readyz')) {
    r.get('/readyz', async (_req, res) => {
      try {
        await deps.ready();
        res.json({ status: 'ready' });
      } catch {
        res.status(503).json({ status: 'not_ready', error: 'a dependency is unreachable', code: 'DATABASE_ERROR' });
      }
    });
  }
  if (probes.includes('metrics')) {
    r.get('/metrics', async (_req, res) => {
      res.type(deps.registry.contentType).send(await deps.registry.metrics());
    });
  }
  return r;
}

/** An app serving the probes only: the workers' port, and the api's admin port. */
export function buildProbeApp(deps: ProbeDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // A load balancer's health check may be HTTP/1.0 without Host (HAProxy's default): the probes answer it.
  app.use(probeRouter(deps));
  app.use(requireHost);
  app.use((_req, res) => res.status(404).json({ error: 'No such route', code: 'NOT_FOUND' }));
  return app;
}
