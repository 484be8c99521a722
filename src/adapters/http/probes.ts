// The probes every process serves: /healthz (alive), /readyz (database and
// queue reachable) and /metrics (Prometheus text format).
import { Router } from 'express';
import type { Registry } from 'prom-client';

export interface ProbeDeps {
  registry: Registry;
  /** Resolves when every dependency is reachable; rejects with the reason otherwise. */
  ready: () => Promise<void>;
}

export function probeRouter(deps: ProbeDeps): Router {
  const r = Router();
  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', pid: process.pid });
  });
  r.get('/readyz', async (_req, res) => {
    try {
      await deps.ready();
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'not_ready', error: 'a dependency is unreachable', code: 'DATABASE_ERROR' });
    }
  });
  r.get('/metrics', async (_req, res) => {
    res.type(deps.registry.contentType).send(await deps.registry.metrics());
  });
  return r;
}
